-- A pairing never replaces another: one pairing per relay name (case aside) and per URL.
ALTER TABLE "paired_relays" ADD COLUMN "name_key" TEXT;
UPDATE "paired_relays" SET "name_key" = lower("name");

-- Pairings made before this rule may collide (a second "EVIL" beside "evil", or two names at one URL): the
-- oldest of each keeps its place and the later ones, which took over by name or URL, are dropped.
DELETE FROM "paired_relays" AS "later"
 USING "paired_relays" AS "earlier"
 WHERE ("later"."name_key" = "earlier"."name_key" OR "later"."url" = "earlier"."url")
   AND ("later"."created_at", "later"."name") > ("earlier"."created_at", "earlier"."name");

ALTER TABLE "paired_relays" ALTER COLUMN "name_key" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "paired_relays_name_key_key" ON "paired_relays"("name_key");

-- CreateIndex
CREATE UNIQUE INDEX "paired_relays_url_key" ON "paired_relays"("url");
