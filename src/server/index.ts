// The service's public entry points (the CLI and embedders import from here).
export { buildApp, bodyLimitBytes, type BuildAppOptions, type AppConfig, type PaypulseContext } from './app.js';
export { loadConfig, defaultConfig, isLoopback, ConfigError, type ServiceConfig, type LoadConfigOptions } from './config.js';
export { startService, type RunningService, type StartServiceOptions } from './service.js';
export { startDemo, type DemoOptions, type RunningDemo } from './demo.js';
export { startFeed, feedRange, type Feed, type TrafficSource, type OutcomeSink } from './feed.js';
export { createIngestClient, IngestError } from './ingestClient.js';
export { serveCommand, demoCommand, simulateCommand } from './commands.js';
export { EventHub, type StreamEvent } from './stream/eventHub.js';
