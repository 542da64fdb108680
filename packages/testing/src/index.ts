export { createTestDatabase, testServerUrl, type TestDatabase } from './create-test-database.ts';
export { startNats, type NatsServer } from './start-nats.ts';
export { freePort } from './free-port.ts';
export { startServiceProcess, type ServiceProcess, type ServiceProcessOptions } from './start-service-process.ts';
