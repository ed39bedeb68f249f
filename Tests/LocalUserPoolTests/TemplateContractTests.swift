import Foundation
import InkraTestSupport
import Testing

@testable import LocalUserPool

/// The local pool's rules against template.yaml, so the pool `serve` runs and the deployed one
/// cannot drift: a change to either fails here until the other follows.
@Suite("UserPoolSettings match template.yaml's UserPool, client and groups")
struct TemplateContractTests {
    /// template.yaml's resource `name`, as its lines (up to the next resource).
    static func resource(_ name: String) throws -> [String] {
        try #require(try TemplateText().resource(name), "template.yaml has no resource \(name)")
    }

    /// The value of `key:` in a resource's lines (the first occurrence), quotes removed.
    static func value(_ key: String, in lines: [String]) -> String? { TemplateText.value(key, in: lines) }

    @Test("password policy, user name attributes and auto-verified attributes")
    func pool() throws {
        let lines = try Self.resource("UserPool")
        let policy = UserPoolSettings().passwordPolicy
        #expect(Self.value("MinimumLength", in: lines) == String(policy.minimumLength))
        #expect(Self.value("RequireLowercase", in: lines) == String(policy.requireLowercase))
        #expect(Self.value("RequireUppercase", in: lines) == String(policy.requireUppercase))
        #expect(Self.value("RequireNumbers", in: lines) == String(policy.requireNumbers))
        #expect(Self.value("RequireSymbols", in: lines) == String(policy.requireSymbols))
        #expect(
            Self.value("UsernameAttributes", in: lines)
                == "[\(UserPoolSettings().usernameAttributes.joined(separator: ", "))]")
        #expect(
            Self.value("AutoVerifiedAttributes", in: lines)
                == "[\(UserPoolSettings().autoVerifiedAttributes.joined(separator: ", "))]")
    }

    @Test("custom attributes: names, types and constraints of the Schema")
    func schema() throws {
        let lines = try Self.resource("UserPool")
        guard let schemaStart = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Schema:" }) else {
            Issue.record("template.yaml's UserPool has no Schema")
            return
        }
        var entries: [[String]] = []
        for line in lines[(schemaStart + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("- ") {
                entries.append([String(trimmed.dropFirst(2))])
            } else if !trimmed.isEmpty {
                entries[entries.count - 1].append(trimmed)
            }
        }
        let custom = entries.filter { Self.value("Name", in: $0) != "email" }
        let settings = UserPoolSettings()
        #expect(custom.count == settings.customAttributes.count)
        for entry in custom {
            let name = try #require(Self.value("Name", in: entry))
            let attribute = try #require(settings.customAttribute(name), "custom:\(name) is not in UserPoolSettings")
            #expect(Self.value("AttributeDataType", in: entry) == attribute.kind.rawValue)
            let minimum = Self.value(attribute.kind == .string ? "MinLength" : "MinValue", in: entry)
            let maximum = Self.value(attribute.kind == .string ? "MaxLength" : "MaxValue", in: entry)
            #expect(minimum == String(attribute.minimum))
            #expect(maximum == String(attribute.maximum))
        }
    }

    @Test("the app client: auth flows, user existence errors, token validity, readable and writable attributes")
    func client() throws {
        let lines = try Self.resource("UserPoolClient")
        let client = try #require(UserPoolSettings().client("inkra-local-client"))
        #expect(Self.value("ClientName", in: lines) == client.name)
        #expect(Self.value("ExplicitAuthFlows", in: lines) == "[\(client.authFlows.joined(separator: ", "))]")
        #expect(
            Self.value("PreventUserExistenceErrors", in: lines)
                == (client.preventUserExistenceErrors ? "ENABLED" : "LEGACY"))
        #expect(Self.value("IdTokenValidity", in: lines).flatMap(Double.init).map { $0 * 60 } == client.idTokenValidity)
        #expect(
            Self.value("AccessTokenValidity", in: lines).flatMap(Double.init).map { $0 * 60 }
                == client.accessTokenValidity)
        #expect(Self.value("IdToken", in: lines) == "minutes")
        #expect(Self.value("AccessToken", in: lines) == "minutes")
        #expect(Self.value("RefreshTokenValidity", in: lines) == nil, "template.yaml now sets RefreshTokenValidity")
        #expect(Self.value("ReadAttributes", in: lines) == "[\(client.readAttributes.joined(separator: ", "))]")
        #expect(Self.value("WriteAttributes", in: lines) == "[\(client.writeAttributes.joined(separator: ", "))]")
        // The test-only client differs only by also allowing USER_PASSWORD_AUTH.
        let cli = try #require(UserPoolSettings().client("inkra-local-cli-client"))
        #expect(Set(cli.authFlows).subtracting(client.authFlows) == ["ALLOW_USER_PASSWORD_AUTH"])
    }

    @Test("the groups and their precedence", arguments: ["FreeTierGroup", "PremiumTierGroup", "BlockedGroup"])
    func groups(resource: String) throws {
        let lines = try Self.resource(resource)
        let name = try #require(Self.value("GroupName", in: lines))
        let group = try #require(UserPoolSettings().groups.first { $0.name == name }, "group \(name) is missing")
        #expect(Self.value("Precedence", in: lines) == String(group.precedence))
    }

    @Test("no other group in template.yaml than the pool's")
    func noOtherGroups() throws {
        let count = try TemplateText().text.components(separatedBy: "Type: AWS::Cognito::UserPoolGroup").count - 1
        #expect(count == UserPoolSettings().groups.count)
    }
}
