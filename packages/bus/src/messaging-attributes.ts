/** OpenTelemetry messaging semantic-convention attribute names the bus sets on its spans. */
export const Messaging = {
  SYSTEM: 'messaging.system',
  DESTINATION_NAME: 'messaging.destination.name',
  MESSAGE_ID: 'messaging.message.id',
  OPERATION_TYPE: 'messaging.operation.type',
  CONSUMER_GROUP_NAME: 'messaging.consumer.group.name',
} as const;
