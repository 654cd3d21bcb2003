//! The merchant's profile and logo (SPEC §16).

use super::Ops;
use crate::error::ApiError;
use invoicing_domain::api_key::{Access, ApiResource};
use invoicing_domain::currency::Currency;
use invoicing_domain::profile::{ImageKind, Logo, Profile, ProfilePatchInput, LOGO_MAX_SIDE};
use invoicing_domain::validation::Violations;
use std::io::Cursor;

/// A refused logo upload (422 naming `logo`).
pub fn refuse_logo(message: impl Into<String>) -> ApiError {
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
