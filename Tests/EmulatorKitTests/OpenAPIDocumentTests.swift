import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// openapi.yaml held to the code: its routes are the ones serve answers, every `ErrorCode` is in it
/// under its status, its limits are the code's constants, and its request schema is template.yaml's
/// request model and serve's, member for member.
@Suite("openapi.yaml against the code and template.yaml")
struct OpenAPIDocumentTests {
    /// openapi.yaml: JSON under a comment header (JSON is YAML), read with the package's parser.
    static func document() throws -> JSONValue {
        let url = Repository.root.appendingPathComponent("openapi.yaml")
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        return try JSONParser.parse(lines.filter { !$0.hasPrefix("#") }.joined(separator: "\n"))
    }

    /// A `$ref` followed within the document.
    static func resolve(_ value: JSONValue, in document: JSONValue) -> JSONValue {
        guard let reference = value["$ref"]?.string, reference.hasPrefix("#/") else { return value }
        let path = reference.dropFirst(2).split(separator: "/").map(String.init)
        var node = document
        for key in path { node = node[key] ?? .null }
        return resolve(node, in: document)
    }

    /// Every `code` enum in a schema (following `$ref` and `anyOf`).
    static func codes(in schema: JSONValue, document: JSONValue) -> [String] {
        let schema = resolve(schema, in: document)
        let own = schema["properties"]?["code"]?["enum"]?.array?.compactMap(\.string) ?? []
        let alternatives = (schema["anyOf"]?.array ?? []).flatMap { codes(in: $0, document: document) }
        return own + alternatives
    }

    /// The schema without its annotations (`$schema`, `title`, `description`, `x-…`).
    static func validation(_ schema: JSONValue) -> JSONValue {
        switch schema {
        case .object(let object):
            return .object(
                JSONObject(
                    object.pairs.filter { pair in
                        !["$schema", "title", "description"].contains(pair.key) && !pair.key.hasPrefix("x-")
                    }
                    .map { ($0.key, validation($0.value)) }))
        case .array(let items):
            return .array(items.map(validation))
        default:
            return schema
        }
    }

    @Test("Its paths and methods are the routes serve answers, and serve answers each of them")
    func routes() async throws {
        let document = try Self.document()
        let paths = try #require(document["paths"]?.object)
        var documented: Set<String> = []
        for (path, item) in paths.pairs {
            for method in item.object?.keys ?? [] { documented.insert("\(method.uppercased()) \(path)") }
        }
        let served = Set(LocalAPIGateway.routes.map { "\($0.method) \($0.resource)" })
        #expect(documented == served)

        // Without a token, a route serve has answers 401 unauthorized (not 403 Missing
        // Authentication Token, API Gateway's answer for a route it does not have).
        let gateway = LocalAPIGateway(stack: try await EmulatorStack(options: Repository.options()))
        for route in documented.sorted() {
            let parts = route.split(separator: " ").map(String.init)
            let request = LocalHTTPRequest(
                method: parts[0], path: parts[1], query: "", headers: [("Host", "localhost")], body: [],
                sourceIP: "127.0.0.1")
            let answer = await gateway.respond(request)
            #expect(answer.response.status == 401, "\(route)")
        }
    }

    @Test("Every ErrorCode is in it, each under its own status")
    func errorCodes() throws {
        let document = try Self.document()
        var found: [String: Set<Int>] = [:]
        for (_, item) in try #require(document["paths"]?.object).pairs {
            for (_, operation) in item.object?.pairs ?? [] {
                for (status, response) in operation["responses"]?.object?.pairs ?? [] {
                    let response = Self.resolve(response, in: document)
                    let schema = response["content"]?["application/json"]?["schema"] ?? .null
                    for code in Self.codes(in: schema, document: document) {
                        found[code, default: []].insert(try #require(Int(status)))
                    }
                }
            }
        }
        let all = ErrorCode.functions + ErrorCode.gateway.map(\.code)
        for code in all {
            let statuses = try #require(found[code.rawValue], "openapi.yaml never answers \(code)")
            // DEFAULT_4XX and DEFAULT_5XX answer a family of statuses; the rest their own.
            switch code {
            case .requestRejected: #expect(statuses.allSatisfy { (400..<500).contains($0) }, "\(code)")
            case .gatewayError: #expect(statuses.allSatisfy { (500..<600).contains($0) }, "\(code)")
            default: #expect(statuses == [code.status], "\(code)")
            }
        }
        #expect(Set(found.keys) == Set(all.map(\.rawValue)), "codes in openapi.yaml that ErrorCode does not have")
    }

    /// The document's codes for a route's status.
    static func codes(_ route: LocalAPIGateway.Route, _ status: Int, in document: JSONValue) -> [String] {
        let operation = document["paths"]?[route.resource]?[route.method.lowercased()]
        let response = resolve(operation?["responses"]?[String(status)] ?? .null, in: document)
        return codes(in: response["content"]?["application/json"]?["schema"] ?? .null, document: document)
    }

    @Test("API Gateway's own answers, as serve gives them on every route, are in it with their status and code")
    func gatewayAnswers() async throws {
        let document = try Self.document()
        let when = Timestamp(timeIntervalSince1970: 1_800_000_000)
        func token(_ groups: [String]? = nil) throws -> String {
            try DevelopmentTokens.mint(
                with: Repository.developmentKey, claims: .init(sub: "described", tier: "premium", groups: groups),
                at: when)
        }
        // The functions (and, for one case, the authorizer) fail as a broken deployment would.
        func gateway(failing: FunctionName? = nil, throttled: Bool = false) async throws -> LocalAPIGateway {
            var options = Repository.options()
            options.now = when
            var configuration = LocalAPIGateway.Configuration()
            configuration.validatesBodies = true
            configuration.authorizerCacheTTL = 0
            if throttled { configuration.throttle = StageThrottle.Limits(rate: 0.001, burst: 1) }
            return LocalAPIGateway(stack: try await EmulatorStack(options: options), configuration: configuration) {
                function, _, _ in
                guard function == failing else { return nil }
                return Invocation(outcome: .failure(FunctionError(errorType: "Boom", errorMessage: "boom")))
            }
        }
        for route in LocalAPIGateway.routes {
            func send(_ gateway: LocalAPIGateway, token: String?, body: String = "[]") async -> LocalHTTPResponse {
                var headers = [("Host", "localhost"), ("Content-Type", "application/json")]
                if let token { headers.append(("Authorization", "Bearer \(token)")) }
                let request = LocalHTTPRequest(
                    method: route.method, path: route.resource, query: "", headers: headers, body: Array(body.utf8),
                    sourceIP: "127.0.0.1")
                return await gateway.respond(request).response
            }
            var answers: [(String, LocalHTTPResponse)] = await [
                ("no token", await send(try gateway(), token: nil)),
                ("blocked", await send(try gateway(), token: try token(["blocked"]))),
                ("function failed", await send(try gateway(failing: route.function), token: try token())),
                ("authorizer failed", await send(try gateway(failing: .authorizer), token: try token())),
                ("too large", try gateway().requestTooLarge()),
            ]
            let throttled = try await gateway(throttled: true)
            _ = await send(throttled, token: try token())
            answers.append(("throttled", await send(throttled, token: try token())))
            if RequestModel.byFunction[route.function] != nil {
                answers.append(("invalid body", await send(try gateway(), token: try token())))
            }
            for (name, answer) in answers {
                let code = try JSONParser.parse(answer.body)["code"]?.string ?? "none"
                #expect(
                    Self.codes(route, answer.status, in: document).contains(code),
                    "\(route.method) \(route.resource), \(name): \(answer.status) \(code) is not in openapi.yaml")
                if [429, 504].contains(answer.status) || code == "authorizer_unavailable" {
                    #expect(answer.header("Retry-After") != nil, "\(name)")
                }
            }
        }
    }

    @Test("Its limits are the code's constants")
    func limits() throws {
        let document = try Self.document()
        let schema = try #require(document["components"]?["schemas"]?["QuestionsRequest"])
        let topic = try #require(schema["properties"]?["topic"])
        #expect(topic["x-inkra-maxCharacters"]?.int == QuestionsBody.maximumTopicCharacters)
        #expect(topic["x-inkra-maxBytes"]?.int == QuestionsBody.maximumTopicBytes)
        let count = try #require(schema["properties"]?["count"])
        #expect(count["minimum"]?.int == QuestionsBody.countRange.lowerBound)
        #expect(count["maximum"]?.int == QuestionsBody.countRange.upperBound)
        let language = try #require(schema["properties"]?["language"])
        #expect(language["minLength"]?.int == QuestionsBody.languageCharacters.lowerBound)
        #expect(language["x-inkra-maxCharacters"]?.int == QuestionsBody.languageCharacters.upperBound)
        let lengths = schema["properties"]?["length"]?["enum"]?.array?.compactMap(\.string)
        #expect(lengths == QuestionLength.allCases.map(\.rawValue))
        let post = try #require(document["paths"]?["/questions"]?["post"])
        #expect(post["requestBody"]?["x-inkra-maxBytes"]?.int == GenerateQuestions.maximumBodySize)
        let key = Self.resolve(try #require(post["parameters"]?.array?.first), in: document)
        #expect(key["name"]?.string == "Idempotency-Key")
        #expect(key["schema"]?["minLength"]?.int == GenerateQuestions.idempotencyKeyLength.lowerBound)
        #expect(key["schema"]?["maxLength"]?.int == GenerateQuestions.idempotencyKeyLength.upperBound)
        // 429's window and retryAfter, and Retry-After on every answer that carries it.
        let rateLimited = try #require(document["components"]?["schemas"]?["RateLimited"])
        #expect(rateLimited["required"]?.array?.compactMap(\.string).contains("retryAfter") == true)
        #expect(rateLimited["properties"]?["window"]?["enum"] == ["day", "hour"])
        let tooMany = try #require(post["responses"]?["429"])
        #expect(tooMany["headers"]?["Retry-After"] != nil)
    }

    @Test("Its request schema is template.yaml's request model and serve's, member for member")
    func requestModel() throws {
        let document = try Self.document()
        let documented = try #require(document["components"]?["schemas"]?["QuestionsRequest"])
        #expect(Self.validation(documented) == Self.validation(RequestModel.questions.schema))

        // template.yaml keeps the model as a JSON flow mapping (JSON is YAML) under Models.
        let template = try TemplateText()
        let lines = template.lines
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "QuestionsRequest: {" })
        var text = "{"
        var depth = 1
        var index = start + 1
        while depth > 0, index < lines.count {
            text += lines[index] + "\n"
            depth += lines[index].filter { $0 == "{" }.count - lines[index].filter { $0 == "}" }.count
            index += 1
        }
        let model = try JSONParser.parse(text)
        #expect(model == RequestModel.questions.schema)

        // The route's event names it and validates bodies with it.
        let function = try #require(template.functions()["generateQuestions"])
        let event = try #require(function.firstIndex { $0.contains("RequestModel:") })
        #expect(function[event + 1].trimmingCharacters(in: .whitespaces) == "Model: QuestionsRequest")
        #expect(
            function[event...].prefix(4).contains { $0.trimmingCharacters(in: .whitespaces) == "ValidateBody: true" })
    }

    @Test("The request models use only the draft-4 keywords serve's validator understands")
    func keywords() {
        func used(_ schema: JSONValue) -> Set<String> {
            guard let object = schema.object else { return [] }
            var keys = Set(object.keys).subtracting(["$schema", "title", "description"])
            for (name, member) in object["properties"]?.object?.pairs ?? [] {
                _ = name
                keys.formUnion(used(member))
            }
            return keys
        }
        for (_, model) in RequestModel.byFunction {
            #expect(used(model.schema).isSubset(of: RequestModel.keywords))
        }
    }
}
