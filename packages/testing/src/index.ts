export { createTestDatabase, testServerUrl, type TestDatabase } from './create-test-database.ts';
export { startNats, TEST_NATS_USER, type NatsCredentials, type NatsServer } from './start-nats.ts';
export { freePort } from './free-port.ts';
export { callersFor, makeTestCredentials, type TestServiceCredentials } from './service-credentials.ts';
export { startServiceProcess, type ServiceProcess, type ServiceProcessOptions } from './start-service-process.ts';
export { createTestCa, type CertificateFiles, type TestCa } from './test-ca.ts';
