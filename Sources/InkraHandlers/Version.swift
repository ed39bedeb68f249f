/// The package's version, in one place: `inkra-emulator --version` prints it, `bootstrap` logs it
/// when it starts, and CHANGELOG.md names the same.
public enum InkraVersion {
    /// The semantic version of this build of the package: `MAJOR.MINOR.PATCH`.
    public static let current = "0.2.0"
}
