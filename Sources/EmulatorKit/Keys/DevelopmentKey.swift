import Foundation
import InkraAuth

/// The emulator's development signing key: LOCAL DEVELOPMENT ONLY.
///
/// Its private half is committed to the repository on purpose so that anyone can mint tokens for
/// local work; nothing deployed may trust it, and the `bootstrap` runtime never loads it.
package struct DevelopmentKey: Sendable {
    /// The key id in tokens and in the JWKS.
    package static let keyID = "inkra-local-development-key"
    /// The development user pool's issuer.
    package static let issuer = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_InkraLocal"
    /// The development app client id.
    package static let clientID = "inkra-local-client"
    /// The files' names in the keys folder.
    package static let privateKeyFile = "dev-private-key.pem"
    /// The JWKS file's name.
    package static let jwksFile = "dev-jwks.json"

    /// Signs development tokens.
    package let signer: TokenSigner
    /// The public JWKS.
    package let jwks: Data

    /// Loads the key pair from a folder holding `dev-private-key.pem` and `dev-jwks.json`.
    /// - Throws: ``EmulatorError`` naming the file that is missing or unreadable.
    package init(directory: URL) throws(EmulatorError) {
        let pemURL = directory.appendingPathComponent(Self.privateKeyFile)
        let jwksURL = directory.appendingPathComponent(Self.jwksFile)
        do {
            let pem = try String(contentsOf: pemURL, encoding: .utf8)
            signer = try TokenSigner(privateKeyPEM: pem, kid: Self.keyID)
        } catch {
            throw EmulatorError("development key \(pemURL.path) cannot be read: \(error)")
        }
        do {
            jwks = try Data(contentsOf: jwksURL)
        } catch {
            throw EmulatorError("development JWKS \(jwksURL.path) cannot be read: \(error)")
        }
    }
}
