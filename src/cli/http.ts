// fetch for the CLI's clients: a request that cannot be made says which URL it was for and why
// ("cannot reach http://127.0.0.1:8080/v1/outcomes: ECONNREFUSED"), not undici's bare "fetch failed".

export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach ${url}: ${reason}`);
    this.name = 'UnreachableError';
  }
}

/** The most specific reason undici gives: the system error's code (ECONNREFUSED, ENOTFOUND …) when there is one. */
function reasonOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

export async function fetchNamed(url: string | URL, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    throw new UnreachableError(String(url), reasonOf(err));
  }
}

/** The `{ error: { code, message } }` of a failed answer as one line, or its status line when it is not JSON. */
export async function failureText(url: string | URL, response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let detail = response.statusText;
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error) detail = `${body.error.code ?? ''}: ${body.error.message ?? ''}`;
  } catch {
    if (text) detail = text.slice(0, 200);
  }
  return `${url} answered ${response.status} ${detail}`;
}
