/**
 * Whether the standard OpenTelemetry variables ask for traces (docs/decisions.md#traces): an OTLP
 * endpoint, or an exporter named in `OTEL_TRACES_EXPORTER`. With none of them, nothing is loaded.
 */
export function tracesRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0) return exporters.some((name) => name !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
