// Reload outcomes, named as Prometheus and Alertmanager name theirs, so an existing "config reload failed" alert
// rule fits PayPulse with a new metric name only.
import client from 'prom-client';

export function registerReloadMetrics(registry: client.Registry): (ok: boolean) => void {
  const reloads = new client.Counter({
    name: 'paypulse_config_reloads_total',
    help: 'Configuration reloads (SIGHUP or POST /v1/admin/reload) by result.',
    labelNames: ['result'],
    registers: [registry],
  });
  const lastSuccessful = new client.Gauge({
    name: 'paypulse_config_last_reload_successful',
    help: '1 when the last reload was applied (or none was tried), 0 when it was refused and an older configuration runs.',
    registers: [registry],
  });
  lastSuccessful.set(1);
  for (const result of ['success', 'failure']) reloads.inc({ result }, 0);
  return (ok) => {
    reloads.inc({ result: ok ? 'success' : 'failure' });
    lastSuccessful.set(ok ? 1 : 0);
  };
}
