-- How far a held call was last announced (external_call_held's held_until, docs/adr/0050): a renewal announces the
-- call again only once its lease reaches past this, rather than at every renewal. NULL for the holds that were
-- never announced (and those of the previous release, which a renewal announces once). Safe for the previous
-- release: it neither reads nor needs the column.
ALTER TABLE "external_calls" ADD COLUMN "announced_until" TIMESTAMP(3);
