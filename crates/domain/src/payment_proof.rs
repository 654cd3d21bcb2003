//! Proof of a transfer (SPEC §25): the file a customer attaches to "I have paid". What it is
//! is what its bytes say (a PDF, a PNG or a JPEG), never its name or declared type; its name is
//! kept only in characters that are safe in any header or file system.

/// A proof file as kept: its name made safe, its type from its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofFile {
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// 5 MiB.
pub const PROOF_MAX_BYTES: usize = 5 * 1024 * 1024;
const NAME_MAX: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofKind {
    Pdf,
    Png,
    Jpeg,
}

impl ProofKind {
    /// The kind the bytes start with, if one of the three.
    pub fn sniff(bytes: &[u8]) -> Option<ProofKind> {
        if bytes.starts_with(b"%PDF-") {
            Some(ProofKind::Pdf)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ProofKind::Png)
        } else if bytes.starts_with(b"\xFF\xD8\xFF") {
            Some(ProofKind::Jpeg)
        } else {
            None
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            ProofKind::Pdf => "application/pdf",
            ProofKind::Png => "image/png",
            ProofKind::Jpeg => "image/jpeg",
        }
    }

    pub fn from_content_type(s: &str) -> Option<ProofKind> {
        [ProofKind::Pdf, ProofKind::Png, ProofKind::Jpeg]
            .into_iter()
            .find(|k| k.content_type() == s)
    }

    fn extension(self) -> &'static str {
        match self {
            ProofKind::Pdf => "pdf",
            ProofKind::Png => "png",
            ProofKind::Jpeg => "jpg",
        }
    }
}

/// Why a file is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    #[error("must be a PDF, PNG or JPEG file")]
    NotAllowed,
    #[error("must be at most 5 MiB")]
    TooLarge,
}

/// The file as it is kept: its kind from its bytes, its name made safe and given the kind's
/// extension.
pub fn parse_proof(filename: &str, bytes: Vec<u8>) -> Result<ProofFile, ProofError> {
    if bytes.len() > PROOF_MAX_BYTES {
        return Err(ProofError::TooLarge);
    }
    let kind = ProofKind::sniff(&bytes).ok_or(ProofError::NotAllowed)?;
    let base = filename.rsplit(['/', '\\']).next().unwrap_or_default();
    let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let mut safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(NAME_MAX)
        .collect();
    if safe.trim_matches('_').is_empty() {
        safe = "proof".into();
    }
    Ok(ProofFile {
        filename: format!("{safe}.{}", kind.extension()),
        content_type: kind.content_type().into(),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_decide_and_the_name_is_made_safe() {
        let pdf = parse_proof("Überweisung März.pdf", b"%PDF-1.7 ...".to_vec()).unwrap();
        assert_eq!(pdf.content_type, "application/pdf");
        assert_eq!(pdf.filename, "_berweisung_M_rz.pdf");
        let png = parse_proof("../../etc/x\".png", b"\x89PNG\r\n\x1a\nrest".to_vec()).unwrap();
        assert_eq!(
            (png.filename.as_str(), png.content_type.as_str()),
            ("x_.png", "image/png")
        );
        let jpeg = parse_proof("", b"\xFF\xD8\xFF\xE0".to_vec()).unwrap();
        assert_eq!(jpeg.filename, "proof.jpg");
        // A renamed executable is what its bytes are.
        assert_eq!(
            parse_proof("receipt.pdf", b"MZ\x90\x00".to_vec()),
            Err(ProofError::NotAllowed)
        );
        assert_eq!(
            parse_proof("receipt.pdf", b"\x7fELF".to_vec()),
            Err(ProofError::NotAllowed)
        );
        let mut big = b"%PDF-".to_vec();
        big.resize(PROOF_MAX_BYTES + 1, b' ');
        assert_eq!(parse_proof("big.pdf", big), Err(ProofError::TooLarge));
        let mut fits = b"%PDF-".to_vec();
        fits.resize(PROOF_MAX_BYTES, b' ');
        assert!(parse_proof("fits.pdf", fits).is_ok());
    }
}
