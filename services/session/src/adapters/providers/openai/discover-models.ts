/**
 * The model ids an OpenAI-compatible endpoint offers (GET {base}/models), for a relay that does not
 * configure them (RELAY_OPENAI_MODELS).
 */

/** The ids from GET {baseUrl}/models, sorted; throws when the endpoint cannot say. */
export async function discoverModels(
  options: { baseUrl: string; apiKey: string | undefined; signal?: AbortSignal },
  fetchFn: typeof fetch = fetch,
): Promise<string[]> {
  const response = await fetchFn(`${options.baseUrl.replace(/\/+$/, '')}/models`, {
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!response.ok) throw new Error(`GET /models answered HTTP ${response.status}`);
  const body = (await response.json()) as { data?: { id?: unknown }[] };
  if (!Array.isArray(body.data)) throw new Error('GET /models answered without a data list');
  return [...new Set(body.data.map((model) => model.id).filter((id): id is string => typeof id === 'string' && id !== ''))].sort();
}
