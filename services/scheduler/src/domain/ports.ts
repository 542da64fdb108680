/**
 * What the scheduler's use cases need from the outside world. Empty until schedule, list and unschedule
 * arrive: then a schedule store (due rows claimed with SELECT … FOR UPDATE SKIP LOCKED) and the Clock.
 */
export {};
