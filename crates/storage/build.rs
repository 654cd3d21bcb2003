fn main() {
    // Embedded migrations must be re-read when a migration file changes.
    println!("cargo:rerun-if-changed=../../migrations");
}
