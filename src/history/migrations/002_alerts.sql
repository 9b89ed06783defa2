-- One row per alert transition (firing, escalated, de-escalated, resolved, reminder), written by the one
-- instance that won the transition, for GET /v1/alerts/history and incident reviews. Muted transitions are
-- kept too (muted = true): they happened, they were only not sent.
CREATE TABLE IF NOT EXISTS alert_transitions (
  id          bigserial   PRIMARY KEY,
  at          timestamptz NOT NULL,
  alert_id    text        NOT NULL,
  alertname   text        NOT NULL,
  channel     text        NOT NULL,
  dims        jsonb,
  rule        text        NOT NULL,
  transition  text        NOT NULL,
  level       text        NOT NULL,
  since       timestamptz NOT NULL,
  muted       boolean     NOT NULL DEFAULT false,
  body        jsonb       NOT NULL
);

CREATE INDEX IF NOT EXISTS alert_transitions_at_idx ON alert_transitions (at);
CREATE INDEX IF NOT EXISTS alert_transitions_channel_at_idx ON alert_transitions (channel, at);
