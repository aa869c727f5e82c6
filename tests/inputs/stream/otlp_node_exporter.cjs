// Spans (and log records) sent the way ai-agent sends them: @opentelemetry/exporter-trace-otlp-grpc (and
// exporter-logs-otlp-grpc when installed) behind the SDK's batch processors, to URL (env). MODULES: the
// node_modules directory holding them. COUNT spans named `${PREFIX}-${i}`; TOKEN, when set, goes as the metadata
// `authorization: Bearer TOKEN`. Prints one JSON line: {"spans": n, "logs": n, "errors": [...]}.
'use strict';
const path = require('node:path');
const req = (name) => require(path.join(process.env.MODULES, name));
const { BasicTracerProvider, BatchSpanProcessor } = req('@opentelemetry/sdk-trace-base');
const { OTLPTraceExporter } = req('@opentelemetry/exporter-trace-otlp-grpc');
const grpc = req('@grpc/grpc-js');

const count = Number(process.env.COUNT || '100');
const prefix = process.env.PREFIX || 'span';
const errors = [];

function options() {
  const opts = { url: process.env.URL, timeoutMillis: 10000 };
  if (process.env.TOKEN) {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${process.env.TOKEN}`);
    opts.metadata = metadata;
  }
  return opts;
}

function watch(exporter) {
  const original = exporter.export.bind(exporter);
  exporter.export = (items, done) => original(items, (result) => {
    if (result.code !== 0) errors.push(String(result.error && result.error.message || result.code));
    done(result);
  });
  return exporter;
}

async function main() {
  const processor = new BatchSpanProcessor(watch(new OTLPTraceExporter(options())),
    { maxQueueSize: count + 1, maxExportBatchSize: 512, scheduledDelayMillis: 50 });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer('ai-agent');
  for (let i = 0; i < count; i++) {
    const span = tracer.startSpan(`${prefix}-${i}`, { attributes: { 'ai.session.txn_id': `t${i % 7}` } });
    span.end();
  }
  try {
    await provider.forceFlush();
    await provider.shutdown();
  } catch (err) {
    errors.push(String(err && err.message || err));  // (a refused export rejects the flush)
  }
  let logs = 0;
  let logsModule = null;
  try { logsModule = req('@opentelemetry/exporter-logs-otlp-grpc'); } catch { /* optional */ }
  if (logsModule !== null) {
    const { LoggerProvider, BatchLogRecordProcessor } = req('@opentelemetry/sdk-logs');
    const exporter = watch(new logsModule.OTLPLogExporter(options()));
    // (sdk-logs 0.211, ai-agent's, takes the exporter; newer ones take { exporter })
    let processor = new BatchLogRecordProcessor({ exporter });
    if (processor._exporter !== exporter) processor = new BatchLogRecordProcessor(exporter);
    const logProvider = new LoggerProvider({ processors: [processor] });
    const logger = logProvider.getLogger('ai-agent');
    for (let i = 0; i < 10; i++) {
      logger.emit({ body: `line ${i}`, severityText: 'VRB', attributes: { agent: 'main', turn: i } });
      logs++;
    }
    try { await logProvider.shutdown(); } catch (err) { errors.push(String(err && err.message || err)); }
  }
  process.stdout.write(JSON.stringify({ spans: count, logs, errors }) + '\n');
}

main().catch((err) => { process.stderr.write(String(err && err.stack || err) + '\n'); process.exit(1); });
