//! The merchant's profile and logo (SPEC §16).

use super::Ops;
use crate::error::ApiError;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::profile::{ImageKind, Logo, Profile, ProfilePatchInput, LOGO_MAX_SIDE};
use invoicing_domain::validation::Violations;
use std::io::Cursor;

/// A refused logo upload (422 naming `logo`).
pub fn refuse_logo(message: impl Into<invoicing_domain::validation::Problem>) -> ApiError {
    Violations::single("logo", message).into()
}

/// What the bytes are, if they decode as a PNG or a JPEG within the limits.
fn check_logo(bytes: &[u8]) -> Result<ImageKind, ApiError> {
    let unreadable = || refuse_logo("is not a readable PNG or JPEG image");
    let (kind, format) = match image::guess_format(bytes) {
        Ok(image::ImageFormat::Png) => (ImageKind::Png, image::ImageFormat::Png),
        Ok(image::ImageFormat::Jpeg) => (ImageKind::Jpeg, image::ImageFormat::Jpeg),
        _ => return Err(unreadable()),
    };
    // The header first, so a small file claiming huge dimensions is refused before decoding.
    let reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader.into_dimensions().map_err(|_| unreadable())?;
    if width == 0 || height == 0 {
        return Err(unreadable());
    }
    if width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE {
        return Err(refuse_logo(format!(
            "must be at most {LOGO_MAX_SIDE}×{LOGO_MAX_SIDE} pixels (this one is {width}×{height})"
        )));
    }
    // Then every pixel: a truncated or corrupt file fails here.
    image::load_from_memory_with_format(bytes, format).map_err(|_| unreadable())?;
    Ok(kind)
}

impl Ops {
    /// The currency a new document gets unless it names one (for the dashboard's forms; anyone
    /// who may read invoices, as staff may not read the profile itself).
    pub async fn default_currency(&self) -> Result<Currency, ApiError> {
        let scope = self.caller.require(ApiResource::Invoices, Access::Read)?;
        self.run(scope, "profile", |r, s| {
            r.get_profile(s).map(|p| p.default_currency)
        })
        .await
    }

    pub async fn profile(&self) -> Result<Profile, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Read)?;
        self.run(scope, "profile", |r, s| r.get_profile(s)).await
    }

    /// Copies the test profile and logo into live (SPEC §27), by who may change the profile:
    /// an API key of the test environment (a live key is refused, 403: it works for live, where
    /// nothing is set up), or an owner in the dashboard, in either environment.
    pub async fn copy_profile_to_live(&self) -> Result<Profile, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Write)?;
        if scope.livemode() && self.caller.user().is_none() {
            return Err(ApiError::test_key_required(
                "Copying the profile to live (the test profile is what is copied)",
            ));
        }
        self.run(scope, "profile", |r, s| r.copy_profile_to_live(s))
            .await
    }

    pub async fn update_profile(&self, input: ProfilePatchInput) -> Result<Profile, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Write)?;
        let patch = input.parse()?;
        self.run(scope, "profile", move |r, s| r.update_profile(s, patch))
            .await
    }

    /// Stores the logo if its bytes decode as a PNG or JPEG within the limits (decoded off the
    /// async workers).
    pub async fn put_logo(&self, bytes: Vec<u8>) -> Result<(), ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Write)?;
        let repos = self.repos.clone();
        crate::blocking(move || match check_logo(&bytes) {
            Err(e) => Ok(Err(e)),
            Ok(kind) => repos.put_logo(scope, Logo { kind, bytes }).map(Ok),
        })
        .await?
    }

    pub async fn logo(&self) -> Result<Option<Logo>, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Read)?;
        self.run(scope, "logo", |r, s| r.get_logo(s)).await
    }

    /// Removes the logo; answers whether there was one.
    pub async fn delete_logo(&self) -> Result<bool, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Write)?;
        self.run(scope, "logo", |r, s| r.delete_logo(s)).await
    }
}

/// Bytes of the export on their way to the response: sent in chunks through a bounded channel,
/// so a client that reads slowly holds the writer back instead of memory filling up.
struct ChannelWriter {
    tx: tokio::sync::mpsc::Sender<Result<bytes::Bytes, std::io::Error>>,
    buf: Vec<u8>,
}

const CHUNK: usize = 64 * 1024;

impl std::io::Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = bytes::Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client left"))
    }
}

/// The export as it is written: chunks, or the error that cut it short.
pub type ExportStream = tokio::sync::mpsc::Receiver<Result<bytes::Bytes, std::io::Error>>;

impl Ops {
    /// Everything of the key's account and environment as a ZIP (SPEC §24), written on a
    /// blocking thread while the answer streams it.
    pub fn export_account(&self) -> Result<ExportStream, ApiError> {
        let scope = self.caller.require(ApiResource::Account, Access::Read)?;
        let repos = self.repos.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let failed = tx.clone();
        actix_web::rt::task::spawn_blocking(move || {
            let out = ChannelWriter {
                tx,
                buf: Vec::with_capacity(CHUNK),
            };
            let written = crate::account_export::write_zip(repos.as_ref(), scope, out);
            if let Err(e) = written {
                log::error!("an account export stopped: {e}");
                // The client sees a cut answer, never an archive that looks whole.
                let _ = failed.blocking_send(Err(std::io::Error::other(e.to_string())));
            }
        });
        Ok(rx)
    }
}
