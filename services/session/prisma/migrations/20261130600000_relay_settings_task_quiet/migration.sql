-- The quiet setting for tasks becomes one of the relay's settings, changeable through the user API.
ALTER TABLE "relay_settings" ADD COLUMN "task_quiet_minutes" INTEGER NOT NULL DEFAULT 10;
