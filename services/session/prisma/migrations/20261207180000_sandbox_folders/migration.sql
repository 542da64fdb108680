-- The OS user a user's commands run as on the command runner, one per folder of theirs (docs/adr/0035-a-sandbox-user-per-relay-user.md):
-- two sessions of one user in different folders run as different uids, so the kernel keeps each out of the other's
-- folder; two in the same folder (the user shared it) share its uid. Given on a session's first command there, from
-- the users' uid sequence, so no uid is ever two users' or two folders'. Additive: the previous release's code never
-- reads it.
CREATE TABLE "sandbox_folders" (
    "user_id" TEXT NOT NULL,
    "folder" TEXT NOT NULL,
    "uid" INTEGER NOT NULL DEFAULT nextval('users_sandbox_uid_seq'),

    CONSTRAINT "sandbox_folders_pkey" PRIMARY KEY ("user_id","folder")
);

CREATE UNIQUE INDEX "sandbox_folders_uid_key" ON "sandbox_folders"("uid");

ALTER TABLE "sandbox_folders" ADD CONSTRAINT "sandbox_folders_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
