-- Each user's own OS user on the command runner (docs/adr/0035-a-sandbox-user-per-relay-user.md): their commands run
-- as it there, and the kernel keeps them out of every other user's folders. From 100000 up (below are the system's
-- and the relay's own users); every existing user gets one now, each new one on insert. Additive: the previous
-- release's code inserts users without it and reads on.
CREATE SEQUENCE "users_sandbox_uid_seq" AS INTEGER START WITH 100000 MINVALUE 100000;
ALTER TABLE "users" ADD COLUMN "sandbox_uid" INTEGER NOT NULL DEFAULT nextval('users_sandbox_uid_seq');
ALTER SEQUENCE "users_sandbox_uid_seq" OWNED BY "users"."sandbox_uid";
CREATE UNIQUE INDEX "users_sandbox_uid_key" ON "users"("sandbox_uid");
