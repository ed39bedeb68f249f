import AWSServices
import Foundation
import InkraTestSupport
import Testing

/// One rule from template.yaml's `TierLimitsParameterName` to the `GetParameter` call: the name is
/// given as SSM has it (`inkra-limits`, or `/inkra/limits` in a hierarchy: "For parameters in a
/// hierarchy, you must include a leading forward slash character (/) when you create or reference a
/// parameter", SSM API reference, `PutParameter`, `Name`), the runtime sends it unchanged, and the
/// policy's resource is the parameter's ARN, `parameter/` and the name without its leading slash.
/// cfn-lint cannot see this; here the template's condition and resource are evaluated for both
/// forms and compared with ``SSMParameterName``'s ARN.
@Suite("The limits parameter: one name from template.yaml to GetParameter")
struct LimitsParameterNameTests {
    /// The template's `LimitsParameterInHierarchy` and `LimitsParameterReadPolicy` resource,
    /// evaluated for `name` in us-east-1, account 123456789012.
    static func templateResource(for name: String) throws -> String {
        let template = try TemplateText()
        let condition = try #require(
            template.section("Conditions").first { $0.hasPrefix("  LimitsParameterInHierarchy:") })
        // The one form of the condition this evaluation knows: the first "/"-separated field is empty.
        #expect(
            condition
                == #"  LimitsParameterInHierarchy: !Equals [!Select [0, !Split ["/", !Ref TierLimitsParameterName]], ""]"#
        )
        let inHierarchy = name.split(separator: "/", omittingEmptySubsequences: false).first == ""
        let policy = try #require(template.resources().first { $0.name == "LimitsParameterReadPolicy" }?.lines)
        let start = try #require(policy.firstIndex { $0.contains("Resource: !If") })
        #expect(policy[start + 1].trimmingCharacters(in: .whitespaces) == "- LimitsParameterInHierarchy")
        let branch = policy[start + (inHierarchy ? 2 : 3)].trimmingCharacters(in: .whitespaces)
        let sub = try #require(branch.hasPrefix("- !Sub ") ? String(branch.dropFirst("- !Sub ".count)) : nil)
        return sub.replacingOccurrences(of: "${AWS::Partition}", with: "aws")
            .replacingOccurrences(of: "${AWS::Region}", with: "us-east-1")
            .replacingOccurrences(of: "${AWS::AccountId}", with: "123456789012")
            .replacingOccurrences(of: "${TierLimitsParameterName}", with: name)
    }

    @Test(
        "The policy's resource is the ARN of the parameter GetParameter names",
        arguments: ["inkra-limits", "/inkra/limits", "/inkra/prod/limits"])
    func policyMatchesName(name: String) throws {
        let parameter = try SSMParameterName(name)
        #expect(parameter.name == name, "GetParameter is sent the name unchanged")
        let arn = parameter.arn(region: "us-east-1", account: "123456789012")
        #expect(try Self.templateResource(for: name) == arn)
        #expect(!arn.contains("parameter//"))
    }

    @Test("Every function that reads the parameter is granted it through the one policy")
    func everyFunctionUsesThePolicy() throws {
        let template = try TemplateText()
        for (handler, lines) in template.functions() {
            #expect(
                lines.contains("        - !If [HasLimitsParameter, !Ref LimitsParameterReadPolicy, !Ref AWS::NoValue]"),
                "\(handler)")
            #expect(!lines.contains { $0.contains("SSMParameterReadPolicy") }, "\(handler)")
        }
    }

    @Test("The template refuses what SSM refuses: a hierarchy without its leading slash")
    func allowedPattern() throws {
        let template = try TemplateText()
        let parameters = template.section("Parameters")
        let start = try #require(parameters.firstIndex(of: "  TierLimitsParameterName:"))
        let pattern = try #require(TemplateText.value("AllowedPattern", in: Array(parameters[start...])))
        let regex = try Regex(pattern)
        for good in ["", "inkra-limits", "/inkra/limits"] {
            #expect((try? regex.wholeMatch(in: good)) != nil, "\(good)")
            if !good.isEmpty { #expect(throws: Never.self) { try SSMParameterName(good) } }
        }
        for bad in ["inkra/limits", "/inkra//limits", "inkra limits", "/"] {
            #expect((try? regex.wholeMatch(in: bad)) == nil, "\(bad)")
            let error = #expect(throws: AWSServiceError.self) { try SSMParameterName(bad) }
            #expect(error?.type == AWSServiceError.invalidConfiguration)
        }
    }
}
