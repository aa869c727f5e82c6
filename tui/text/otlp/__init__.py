"""A saved session as OpenTelemetry spans (`aiagent-monitor export PATH --format otlp`).

The path, module by module: `spans` walks the normalised tree into `tui.formats.otlp.records.Span`s (the receiver's
decoded shape, so both directions share one span type) carrying the GenAI semantic-convention attributes and
ai-agent's own `ai.*` attributes; `messages` reads an LLM op's captures as `gen_ai.input.messages` /
`gen_ai.output.messages`; `encode` lays the spans out as OTLP/JSON export requests (split under the 4 MiB gRPC
limit) and, only when sending, as protobuf; `send` makes the one unary gRPC call or HTTP POST per request.
grpc and opentelemetry-proto are imported only by `encode.to_protobuf` and `send`, so a file export stays light.
"""
