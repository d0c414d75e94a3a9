import FlintServer
import Logging
import ServiceLifecycle
import Tracing
#if OTLP
import OTel
#endif

/// Where `flint serve`'s spans go. By default to Flint's own tracer, which records nothing: trace context is
/// propagated (in from callers, out to the services Flint calls) and trace ids reach the log. Built with the
/// `OTLP` package trait, an OTLP endpoint (`--otlp-endpoint` or `OTEL_EXPORTER_OTLP_ENDPOINT`) hands tracing to
/// swift-otel, which batches spans and exports them over OTLP/HTTP. Either tracer is injected into the server,
/// never bootstrapped process-wide.
struct ServeTracing {
    var tracer: any Tracer
    /// Puts the current trace id on log lines, as `trace_id`.
    var logMetadataProvider: Logger.MetadataProvider
    /// Runs beside the server and stops after it (swift-otel's exporter, which sends the last spans then).
    var services: [any Service] = []

    static var flint: ServeTracing {
        ServeTracing(tracer: FlintTracer(), logMetadataProvider: FlintTracer.logMetadataProvider)
    }

    #if OTLP
    /// swift-otel's tracer exporting to `endpoint` (an OTLP/HTTP base URL: `/v1/traces` is appended), or to where
    /// the `OTEL_*` variables say (they win over the flag, as swift-otel reads them last).
    static func otlp(endpoint: String?, logger: Logger) throws -> ServeTracing {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "flint"
        configuration.diagnosticLogger = .custom(logger)
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        if let endpoint {
            configuration.traces.otlpExporter.endpoint = (endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint)
                + "/v1/traces"
        }
        let (tracer, exporter) = try OTel.makeTracingBackend(configuration: configuration)
        return ServeTracing(tracer: tracer, logMetadataProvider: OTel.makeLoggingMetadataProvider(), services: [exporter])
    }
    #endif
}
