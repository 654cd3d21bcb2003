//! The TLS configuration: the operator's PEM files, or a self-signed certificate for
//! localhost/127.0.0.1 generated into DATA_DIR, reused on later starts and renewed at start when
//! under 30 days remain, it cannot serve, or it was made for longer than a year (SPEC §1).

use anyhow::{anyhow, Context, Result};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use time::{Duration, OffsetDateTime};

mod validity;

pub fn server_config(
    cert_file: Option<&Path>,
    key_file: Option<&Path>,
    data_dir: &Path,
) -> Result<rustls::ServerConfig> {
    let (cert_path, key_path) = match (cert_file, key_file) {
        (Some(c), Some(k)) => (c.to_path_buf(), k.to_path_buf()),
        _ => ensure_self_signed(data_dir)?,
    };
    let certs = read_certs(&cert_path)?;
    let key = read_key(&key_path)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("the TLS certificate and key do not match")?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// How long a generated certificate lasts (SPEC §1: one year, which TLS scanners also accept).
const LIFETIME: Duration = Duration::days(365);
/// SPEC §1: renewed at start once fewer days than this remain.
const RENEW_WITHIN: Duration = Duration::days(30);
/// Starting validity a little in the past keeps clients whose clock lags from refusing a
/// certificate generated moments ago.
const BACKDATE: Duration = Duration::hours(1);

/// Paths of the generated certificate, creating it on first use and renewing it when it is
/// close to expiry or cannot serve as it is.
pub fn ensure_self_signed(data_dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let dir = data_dir.join("tls");
    let cert_path = dir.join("localhost.crt");
    let key_path = dir.join("localhost.key");
    let now = OffsetDateTime::now_utc();
    let Some(reason) = why_renew(&cert_path, &key_path, now) else {
        return Ok((cert_path, key_path));
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    let mut params = rcgen::CertificateParams::new(names).context("naming the certificate")?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params.not_before = now - BACKDATE;
    params.not_after = params.not_before + LIFETIME;
    let not_after = params.not_after;
    let key_pair = rcgen::KeyPair::generate().context("generating a key")?;
    let cert = params
        .self_signed(&key_pair)
        .context("generating a certificate")?;
    // Key first: should the process die before the certificate is written, the next start finds
    // a pair that does not match and generates again.
    write_private(&key_path, key_pair.serialize_pem().as_bytes())?;
    fs::write(&cert_path, cert.pem())
        .with_context(|| format!("writing {}", cert_path.display()))?;
    log::info!(
        "generated a self-signed certificate valid until {} at {} ({reason})",
        not_after.date(),
        cert_path.display()
    );
    Ok((cert_path, key_path))
}

/// Why the generated certificate must be made anew, or `None` when it can serve another start.
fn why_renew(cert_path: &Path, key_path: &Path, now: OffsetDateTime) -> Option<String> {
    if !cert_path.exists() || !key_path.exists() {
        return Some("none yet".into());
    }
    let (certs, key) = match read_certs(cert_path).and_then(|c| Ok((c, read_key(key_path)?))) {
        Ok(pair) => pair,
        Err(e) => return Some(format!("the old one is unreadable: {e:#}")),
    };
    let Some(leaf) = certs.first().cloned() else {
        return Some("the old one is missing".into());
    };
    let provider = rustls::crypto::ring::default_provider();
    if let Err(e) = rustls::sign::CertifiedKey::from_der(certs, key, &provider) {
        return Some(format!("the old one does not match its key: {e}"));
    }
    let validity = match validity::read(&leaf) {
        Ok(v) => v,
        Err(e) => return Some(format!("the old one's validity is unreadable: {e}")),
    };
    if validity.not_before > now {
        return Some(format!(
            "the old one is valid only from {}",
            validity.not_before
        ));
    }
    let left = validity.not_after - now;
    if validity.not_after - validity.not_before > LIFETIME + BACKDATE {
        // An older version generated certificates for centuries, which TLS scanners (Mozilla's
        // profile) refuse: an upgraded installation gets a one-year one.
        return Some(format!(
            "the old one is valid until {}, longer than a year",
            validity.not_after
        ));
    }
    if left < RENEW_WITHIN {
        return Some(format!(
            "the old one expires at {} ({} days left)",
            validity.not_after,
            left.whole_days()
        ));
    }
    None
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    file.write_all(bytes)?;
    Ok(())
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let file = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let certs = rustls_pemfile::certs(&mut BufReader::new(file))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading certificates from {}", path.display()))?;
    if certs.is_empty() {
        return Err(anyhow!("{} holds no certificate", path.display()));
    }
    Ok(certs)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>> {
    let file = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    rustls_pemfile::private_key(&mut BufReader::new(file))
        .with_context(|| format!("reading the key from {}", path.display()))?
        .ok_or_else(|| anyhow!("{} holds no private key", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::{Duration, OffsetDateTime};

    fn fresh_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tls-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn cert_path(dir: &Path) -> PathBuf {
        dir.join("tls/localhost.crt")
    }

    /// Puts a certificate valid from `now + from` to `now + to` days where the server keeps its
    /// own, as an earlier start would have; answers its bytes.
    fn plant(dir: &Path, from: i64, to: i64) -> Vec<u8> {
        let now = OffsetDateTime::now_utc();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.not_before = now + Duration::days(from);
        params.not_after = now + Duration::days(to);
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        fs::create_dir_all(dir.join("tls")).unwrap();
        fs::write(dir.join("tls/localhost.key"), key.serialize_pem()).unwrap();
        fs::write(cert_path(dir), cert.pem()).unwrap();
        fs::read(cert_path(dir)).unwrap()
    }

    fn validity_of(dir: &Path) -> validity::Validity {
        validity::read(&read_certs(&cert_path(dir)).unwrap()[0]).unwrap()
    }

    /// A new certificate was written: valid now, for one year, and usable with its key.
    fn assert_renewed(dir: &Path, old: &[u8]) {
        assert_ne!(
            fs::read(cert_path(dir)).unwrap(),
            old,
            "the old one was kept"
        );
        let v = validity_of(dir);
        let now = OffsetDateTime::now_utc();
        assert!(v.not_before <= now && now - v.not_before < Duration::days(1));
        assert!((364..=366).contains(&(v.not_after - v.not_before).whole_days()));
        assert!(server_config(None, None, dir).is_ok());
    }

    #[test]
    fn generated_once_then_reused() {
        let dir = fresh_dir("reuse");
        let (cert, _) = ensure_self_signed(&dir).unwrap();
        let first = fs::read(&cert).unwrap();
        ensure_self_signed(&dir).unwrap();
        assert_eq!(fs::read(&cert).unwrap(), first);
        assert!(server_config(None, None, &dir).is_ok());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// SPEC §1: one year, not the decades rcgen gives by default (which TLS scanners fail).
    #[test]
    fn a_fresh_certificate_lasts_one_year() {
        let dir = fresh_dir("fresh");
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, b"");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn renewed_when_under_30_days_remain_and_reused_otherwise() {
        let dir = fresh_dir("ten-days");
        let old = plant(&dir, -355, 10);
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, &old);
        fs::remove_dir_all(&dir).unwrap();

        let dir = fresh_dir("two-hundred-days");
        let old = plant(&dir, -165, 200);
        ensure_self_signed(&dir).unwrap();
        assert_eq!(fs::read(cert_path(&dir)).unwrap(), old, "renewed too early");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn renewed_when_expired_not_yet_valid_unreadable_or_not_matching_the_key() {
        let dir = fresh_dir("expired");
        let old = plant(&dir, -400, -1);
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, &old);
        fs::remove_dir_all(&dir).unwrap();

        // A clock set back after generation: clients would refuse it.
        let dir = fresh_dir("future");
        let old = plant(&dir, 2, 300);
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, &old);
        fs::remove_dir_all(&dir).unwrap();

        let dir = fresh_dir("garbage");
        plant(&dir, -1, 300);
        fs::write(cert_path(&dir), "not a certificate").unwrap();
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, b"not a certificate");
        fs::remove_dir_all(&dir).unwrap();

        // A start that died between writing the new key and the new certificate.
        let dir = fresh_dir("mismatch");
        let other = fresh_dir("mismatch-other");
        let old = plant(&dir, -1, 300);
        plant(&other, -1, 300);
        fs::copy(
            other.join("tls/localhost.key"),
            dir.join("tls/localhost.key"),
        )
        .unwrap();
        ensure_self_signed(&dir).unwrap();
        assert_renewed(&dir, &old);
        fs::remove_dir_all(&dir).unwrap();
        fs::remove_dir_all(&other).unwrap();
    }
}
