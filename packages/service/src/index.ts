export { openService, stopOnSignal, type OpenedService, type ServiceBaseConfig } from './open-service.ts';
export { startService, type ServiceConfig, type ServiceParts, type ServiceSpec, type StartedService } from './start-service.ts';
