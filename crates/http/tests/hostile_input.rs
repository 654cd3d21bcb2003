//! Requests built to break the transport contract (SPEC §3, §4): control characters in paths.
//! Each must get a contract answer, never a 500.

mod common;

use actix_web::http::Method;
use actix_web::test::{init_service, TestRequest};
use common::*;
use invoicing_http::build_app;

const HOSTILE_PAGE: &str = "/invoice/x%0d%0aSet-Cookie:%20a=b?token=1";

async fn crlf_in_a_page_path_never_reaches_a_header(h: Harness) {
    let app = init_service(build_app(h.state.clone())).await;
    // The plain listener: redirected with the path exactly as sent, still percent-encoded.
    for page in [HOSTILE_PAGE, "/quote/x%0aX:%20y%7f%00?token=a%0d%0ab"] {
        let plain = TestRequest::get()
            .uri(page)
            .peer_addr("198.51.100.4:5000".parse().unwrap());
        let r = send(&app, plain).await;
        assert_eq!(r.status, 301, "{page}: {}", r.body);
        assert_eq!(r.header("location"), format!("{PUBLIC_URL}{page}"));
        assert!(!r.headers.contains_key("set-cookie"));
        assert!(!r.headers.contains_key("x"));
    }
    // HTTPS: the page does not exist, and says so with the §4 body.
    let r = send(&app, h.anonymous(Method::GET, HOSTILE_PAGE)).await;
    assert_error(&r, 404, "resource_missing");
    assert!(!r.headers.contains_key("set-cookie"));
}

http_tests!(crlf_in_a_page_path_never_reaches_a_header);
