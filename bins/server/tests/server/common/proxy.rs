//! A TCP proxy that can stop forwarding without closing anything, as a frozen database host or
//! a network partition looks from the server: no RST, no answer.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct State {
    next_id: AtomicU64,
    /// Connections with a smaller id stay frozen.
    frozen_below: AtomicU64,
    all_frozen: AtomicBool,
    stop: AtomicBool,
    /// Accepted while frozen: held open, never read.
    held: Mutex<Vec<TcpStream>>,
}

impl State {
    fn frozen(&self, id: u64) -> bool {
        self.all_frozen.load(Ordering::SeqCst) || id < self.frozen_below.load(Ordering::SeqCst)
    }
}

pub struct Proxy {
    pub port: u16,
    state: Arc<State>,
}

impl Proxy {
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(State::default());
        let upstream = upstream.to_string();
        let s = state.clone();
        std::thread::spawn(move || {
            while !s.stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => accept(&s, client, &upstream),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    Err(_) => return,
                }
            }
        });
        Proxy { port, state }
    }

    /// Every connection, open or new, stops forwarding (and stays open).
    pub fn freeze(&self) {
        self.state.all_frozen.store(true, Ordering::SeqCst);
    }

    /// New connections go through again; those open before stay frozen for ever, like
    /// connections to a host that went away while a new one took its address.
    pub fn let_new_through(&self) {
        let next = self.state.next_id.load(Ordering::SeqCst);
        self.state.frozen_below.store(next, Ordering::SeqCst);
        self.state.all_frozen.store(false, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
    }
}

fn accept(state: &Arc<State>, client: TcpStream, upstream: &str) {
    let id = state.next_id.fetch_add(1, Ordering::SeqCst);
    client.set_nonblocking(false).unwrap();
    if state.frozen(id) {
        state.held.lock().unwrap().push(client);
        return;
    }
    let Ok(server) = TcpStream::connect(upstream) else {
        return;
    };
    for (from, to) in [
        (client.try_clone().unwrap(), server.try_clone().unwrap()),
        (server, client),
    ] {
        let state = state.clone();
        std::thread::spawn(move || pump(&state, id, from, to));
    }
}

fn pump(state: &State, id: u64, mut from: TcpStream, mut to: TcpStream) {
    from.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut buf = [0u8; 16 * 1024];
    while !state.stop.load(Ordering::SeqCst) {
        if state.frozen(id) {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
