//! The route table: which paths exist, what they are called, and which methods they allow.
//!
//! Resolution is a pure function of the path, so 404 and 405 are decided before any handler,
//! key check or rate limit runs, and the same table answers CORS preflights.

use crate::http::Method;

/// Methods of a read-only route. HEAD is answered wherever GET is.
pub const READ: &[Method] = &[Method::Get, Method::Head];
/// Methods of the context route (GET with a query, POST with a body).
pub const READ_POST: &[Method] = &[Method::Get, Method::Head, Method::Post];
/// Methods of the MCP endpoint: POST only. GET is answered 405, as Streamable HTTP allows for a
/// server that offers no server-initiated stream.
pub const MCP: &[Method] = &[Method::Post];
/// Methods of publishing an event.
pub const POST: &[Method] = &[Method::Post];

/// A resolved route, with the path parameters it carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `GET /api/v1/health`
    Health,
    /// `GET /api/v1/organs`
    Organs,
    /// `GET /api/v1/systems`
    Systems,
    /// `GET /api/v1/systems/{slug}`
    System(String),
    /// `GET /api/v1/search`
    Search,
    /// `GET|POST /api/v1/context`
    Context,
    /// `GET /api/v1/changes`
    Changes,
    /// `GET /feed/changes.xml`
    ChangesRss,
    /// `GET /api/v1/coverage`
    Coverage,
    /// `GET /api/v1/openapi`
    OpenApi,
    /// `GET /llms.txt`
    LlmsTxt,
    /// `POST /mcp`
    Mcp,
    /// `/api/v1/templates...` (key with the templates scope)
    Templates(crate::templates::TemplateRoute),
    /// `/api/v1/webhooks...` (key with the webhooks scope)
    Webhooks(crate::webhooks::api::WebhookRoute),
    /// `POST /api/v1/events` (key with the events:publish scope)
    Events,
}

impl Route {
    /// Resolves a path to its route, or `None` for an unknown path.
    pub fn resolve(path: &str) -> Option<Route> {
        let rest = path.strip_prefix('/')?;
        let segments: Vec<&str> = rest.split('/').collect();
        let route = match segments.as_slice() {
            ["api", "v1", "health"] => Route::Health,
            ["api", "v1", "organs"] => Route::Organs,
            ["api", "v1", "systems"] => Route::Systems,
            ["api", "v1", "systems", slug] if !slug.is_empty() => Route::System(slug.to_string()),
            ["api", "v1", "search"] => Route::Search,
            ["api", "v1", "context"] => Route::Context,
            ["api", "v1", "changes"] => Route::Changes,
            ["api", "v1", "coverage"] => Route::Coverage,
            ["api", "v1", "openapi"] => Route::OpenApi,
            ["feed", "changes.xml"] => Route::ChangesRss,
            ["llms.txt"] => Route::LlmsTxt,
            ["mcp"] => Route::Mcp,
            ["api", "v1", "templates", rest @ ..] => {
                Route::Templates(crate::templates::TemplateRoute::resolve(rest)?)
            }
            ["api", "v1", "webhooks", rest @ ..] => {
                Route::Webhooks(crate::webhooks::api::WebhookRoute::resolve(rest)?)
            }
            ["api", "v1", "events"] => Route::Events,
            _ => return None,
        };
        Some(route)
    }

    /// Whether the route belongs to the open corpus (rate-limited per client IP).
    pub fn is_corpus(&self) -> bool {
        !matches!(
            self,
            Route::Health | Route::Templates(_) | Route::Webhooks(_) | Route::Events
        )
    }

    /// The methods this route answers (besides OPTIONS, which every route answers).
    pub fn allow(&self) -> &'static [Method] {
        match self {
            Route::Context => READ_POST,
            Route::Mcp => MCP,
            Route::Templates(t) => t.allow(),
            Route::Webhooks(w) => w.allow(),
            Route::Events => POST,
            _ => READ,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_paths_resolve() {
        assert_eq!(Route::resolve("/api/v1/health"), Some(Route::Health));
        assert_eq!(
            Route::resolve("/api/v1/systems/fleischner-2017"),
            Some(Route::System("fleischner-2017".into()))
        );
        assert_eq!(Route::resolve("/feed/changes.xml"), Some(Route::ChangesRss));
        assert_eq!(Route::resolve("/llms.txt"), Some(Route::LlmsTxt));
    }

    #[test]
    fn unknown_paths_do_not_resolve() {
        for path in [
            "",
            "/",
            "/api",
            "/api/v1",
            "/api/v2/health",
            "/api/v1/health/",
            "/api/v1/systems/",
            "/api/v1/systems/a/b",
            "api/v1/health",
        ] {
            assert_eq!(Route::resolve(path), None, "{path}");
        }
    }

    #[test]
    fn allow_lists_match_the_interface() {
        assert_eq!(Route::Health.allow(), READ);
        assert!(!Route::Systems.allow().contains(&Method::Post));
        assert!(Route::Context.allow().contains(&Method::Post));
    }
}
