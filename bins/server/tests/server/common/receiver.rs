//! A webhook receiver on loopback for the tests: records every request and answers with the
//! status the test sets (or refuses connections while stopped).

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Received {
    pub id: String,
    pub timestamp: i64,
    pub signature: String,
    pub body: String,
}

#[derive(Clone, Default)]
struct Shared {
    got: Arc<Mutex<Vec<Received>>>,
    status: Arc<AtomicU16>,
}

pub struct Receiver {
    pub url: String,
    shared: Shared,
    handle: actix_web::dev::ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

async fn record(req: HttpRequest, body: web::Bytes, shared: web::Data<Shared>) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    shared.got.lock().unwrap().push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp").parse().unwrap_or(0),
        signature: header("webhook-signature"),
        body: String::from_utf8_lossy(&body).to_string(),
    });
    let status = shared.status.load(Ordering::SeqCst);
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap())
        .body(format!("receiver says {status}"))
}

impl Receiver {
    /// Listens on `port` (0: any free port), answering `status`.
    pub fn start_on(port: u16, status: u16) -> Receiver {
        Receiver::start_with(port, Shared::default(), status)
    }

    pub fn start(status: u16) -> Receiver {
        Receiver::start_on(0, status)
    }

    fn start_with(port: u16, shared: Shared, status: u16) -> Receiver {
        shared.status.store(status, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        let data = shared.clone();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(web::Data::new(data.clone()))
                        .default_service(web::to(record))
                })
                .workers(2)
                .bind(("127.0.0.1", port))
                .unwrap();
                let addr = server.addrs()[0];
                let server = server.run();
                tx.send((server.handle(), addr)).unwrap();
                server.await.unwrap();
            })
        });
        let (handle, addr) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        Receiver {
            url: format!("http://127.0.0.1:{}/hooks", addr.port()),
            shared,
            handle,
            thread: Some(thread),
        }
    }

    pub fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    pub fn set_status(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.shared.got.lock().unwrap().clone()
    }

    /// Waits until at least `n` requests have arrived (at most `secs` seconds).
    pub fn wait_for(&self, n: usize, secs: u64) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "expected {n} webhook requests within {secs}s, got {}: {:?}",
                got.len(),
                got.iter().map(|r| &r.id).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops listening: connections are refused until it starts again on the same port.
    pub fn stop(mut self) -> (u16, Vec<Received>) {
        let port = self.port();
        actix_web::rt::System::new().block_on(self.handle.stop(true));
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        (port, self.received())
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            actix_web::rt::System::new().block_on(self.handle.stop(false));
            let _ = t.join();
        }
    }
}
