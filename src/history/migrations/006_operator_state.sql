-- Operator state that must outlive a Redis restarted empty: breaker overrides, mutes and firing alerts. Each row
-- mirrors one coordination key of a namespace; an instance that finds Redis emptied writes the rows back, and the
-- row of a firing alert is how an alert whose state was lost still gets its `resolved` (src/operatorState/).
CREATE TABLE IF NOT EXISTS operator_state (
  namespace   text        NOT NULL,
  kind        text        NOT NULL CHECK (kind IN ('breaker', 'mute', 'alert')),
  channel     text        NOT NULL,
  scope       text        NOT NULL DEFAULT '',
  value       text        NOT NULL,
  note        text        NOT NULL DEFAULT '',
  expires_at  timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, kind, channel, scope)
);
