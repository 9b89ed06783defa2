// The service's public entry points (embedders import from here).
export { buildApp, bodyLimitBytes, type BuildAppOptions, type AppConfig, type PaypulseContext } from './app.js';
export { loadConfig, defaultConfig, isLoopback, ConfigError, type ServiceConfig, type LoadConfigOptions } from './config.js';
export { startService, type RunningService, type StartServiceOptions } from './service.js';
export { EventHub, type StreamEvent } from './stream/eventHub.js';
