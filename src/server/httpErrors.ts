// Every error leaves the service as { error: { code, message, details? } } with a PP_ERR_* code from the one
// registry (src/errors.ts), whatever raised it: our code, the library, or Fastify itself.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { errorCodes, PayPulseError, type ErrorCode, type FieldIssue } from '../errors.js';

export function sendError(reply: FastifyReply, code: ErrorCode, message: string = errorCodes[code].message, details?: unknown): FastifyReply {
  const error: { code: ErrorCode; message: string; details?: unknown } = { code, message };
  if (details !== undefined) error.details = details;
  return reply.code(errorCodes[code].status).send({ error });
}

/** Fastify's own validation of params and query: one issue per Ajv error, index 0 (they are not batch items). */
function issuesOf(error: FastifyError): FieldIssue[] {
  return (error.validation ?? []).map((v) => {
    const params = v.params as Record<string, string>;
    const path = v.instancePath.split('/').filter(Boolean).join('.');
    const field = [path, params.missingProperty ?? params.additionalProperty].filter(Boolean).join('.');
    return { index: 0, field: `${error.validationContext ?? ''}${field ? `.${field}` : ''}`, reason: v.message ?? 'is invalid' };
  });
}

/** Fastify error codes → ours; anything else with a 4xx keeps its message under PP_ERR_VALIDATION. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PP_ERR_PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'PP_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'PP_ERR_VALIDATION',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'PP_ERR_VALIDATION',
  FST_ERR_CTP_INVALID_JSON_BODY: 'PP_ERR_VALIDATION',
};

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PayPulseError) {
      if (error.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(reply, error.code, error.message, error.details);
    }
    if (error.validation) {
      const issues = issuesOf(error);
      return sendError(reply, 'PP_ERR_VALIDATION', issues.map((i) => `${i.field} ${i.reason}`).join('; '), issues);
    }
    const mapped = error.code ? fastifyCodes[error.code] : undefined;
    if (mapped) return sendError(reply, mapped, mapped === 'PP_ERR_VALIDATION' ? error.message : errorCodes[mapped].message);
    // JSON.parse failures inside Fastify's parser carry statusCode 400 but no FST code in some paths.
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, 'PP_ERR_VALIDATION', error.message);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, 'PP_ERR_INTERNAL');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'PP_ERR_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
  );
}
