-- A transaction that writes outbox rows wakes the service's outbox relay when it commits (LISTEN relay_outbox),
-- so events go out at once without a short poll.
CREATE FUNCTION "outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('relay_outbox', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "outbox_notify" AFTER INSERT ON "outbox" FOR EACH STATEMENT EXECUTE FUNCTION "outbox_notify"();
