import Hummingbird

/// Gives each request its own `CacheGeneration.RequestScope`, so the store's cache generation is read at most
/// once per request.
struct CacheGenerationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await CacheGeneration.$scope.withValue(CacheGeneration.RequestScope()) {
            try await next(request, context)
        }
    }
}
