//! The TLS configuration: the operator's PEM files, or a self-signed certificate for
//! localhost/127.0.0.1 generated once into DATA_DIR and reused on later starts.

use anyhow::{anyhow, Context, Result};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// Paths of the generated certificate, creating it on first use.
pub fn ensure_self_signed(data_dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let dir = data_dir.join("tls");
    let cert_path = dir.join("localhost.crt");
    let key_path = dir.join("localhost.key");
    if cert_path.exists() && key_path.exists() {
        return Ok((cert_path, key_path));
    }
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    let generated =
        rcgen::generate_simple_self_signed(names).context("generating a certificate")?;
    write_private(&key_path, generated.key_pair.serialize_pem().as_bytes())?;
    fs::write(&cert_path, generated.cert.pem())
        .with_context(|| format!("writing {}", cert_path.display()))?;
    log::info!(
        "generated a self-signed certificate at {}",
        cert_path.display()
    );
    Ok((cert_path, key_path))
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

    #[test]
    fn generated_once_then_reused() {
        let dir = std::env::temp_dir().join(format!("tls-test-{}", std::process::id()));
        let (cert, _) = ensure_self_signed(&dir).unwrap();
        let first = fs::read(&cert).unwrap();
        ensure_self_signed(&dir).unwrap();
        assert_eq!(fs::read(&cert).unwrap(), first);
        assert!(server_config(None, None, &dir).is_ok());
        fs::remove_dir_all(&dir).unwrap();
    }
}
