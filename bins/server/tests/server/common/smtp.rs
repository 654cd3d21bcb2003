//! A real SMTP server for the tests: Debian's aiosmtpd running `scripts/smtp_sink.py` on a free
//! loopback port, keeping each message it accepts as a file the test parses.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Sink {
    child: Child,
    pub port: u16,
    pub maildir: PathBuf,
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct Options<'a> {
    pub port: u16,
    /// STARTTLS with this certificate and key, required before MAIL.
    pub tls: Option<(&'a Path, &'a Path)>,
    /// With `tls`: TLS from the first byte (SMTPS) instead of STARTTLS.
    pub implicit: bool,
    /// Recipients matching this regex get 550.
    pub reject: Option<&'a str>,
}

impl Sink {
    pub fn start(maildir: &Path) -> Sink {
        Sink::start_with(
            maildir,
            Options {
                port: free_port(),
                tls: None,
                implicit: false,
                reject: None,
            },
        )
    }

    pub fn start_with(maildir: &Path, o: Options<'_>) -> Sink {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/smtp_sink.py");
        let mut cmd = Command::new("/usr/bin/python3");
        cmd.arg(script)
            .args(["--port", &o.port.to_string()])
            .arg("--maildir")
            .arg(maildir);
        if let Some((cert, key)) = o.tls {
            cmd.arg("--tls-cert").arg(cert).arg("--tls-key").arg(key);
            if o.implicit {
                cmd.arg("--implicit-tls");
            }
        }
        if let Some(reject) = o.reject {
            cmd.args(["--reject", reject]);
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("/usr/bin/python3 with python3-aiosmtpd (scripts/test installs it)");
        let until = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", o.port)).is_err() {
            assert!(Instant::now() < until, "the SMTP sink did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Sink {
            child,
            port: o.port,
            maildir: maildir.to_path_buf(),
        }
    }

    pub fn plain_url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    pub fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The raw messages received in `maildir` so far, oldest first.
pub fn received(maildir: &Path) -> Vec<Vec<u8>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(maildir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    names.retain(|p| p.extension().is_some_and(|e| e == "eml"));
    names.sort();
    names.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// The envelope of message `n` (from 1): `{mail_from, rcpt_tos, tls}`.
pub fn envelope(maildir: &Path, n: usize) -> serde_json::Value {
    let text = std::fs::read_to_string(maildir.join(format!("{n:06}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Waits until at least `count` messages arrived; answers them.
pub fn wait_for(maildir: &Path, count: usize, secs: u64) -> Vec<Vec<u8>> {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let got = received(maildir);
        if got.len() >= count || Instant::now() > until {
            assert!(
                got.len() >= count,
                "{} of {count} messages after {secs} s",
                got.len()
            );
            return got;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
