import Foundation
import InkraJSON
import InkraTime
import LocalUserPool

extension CognitoEndpoint {
    /// Runs one operation of the Cognito Identity Provider API.
    func perform(_ operation: String, _ request: CognitoRequest) throws(CognitoError) -> JSONValue {
        switch operation {
        case "SignUp":
            let (sub, delivery) = try pool.signUp(
                clientID: try request.string("ClientId"), username: try request.string("Username"),
                password: try request.string("Password"), attributes: try request.attributes("UserAttributes"))
            return ["UserConfirmed": false, "UserSub": .string(sub), "CodeDeliveryDetails": Self.json(delivery)]
        case "ConfirmSignUp":
            try pool.confirmSignUp(
                clientID: try request.string("ClientId"), username: try request.string("Username"),
                code: try request.string("ConfirmationCode"))
            return [:]
        case "ResendConfirmationCode":
            let delivery = try pool.resendConfirmationCode(
                clientID: try request.string("ClientId"), username: try request.string("Username"))
            return ["CodeDeliveryDetails": Self.json(delivery)]
        case "InitiateAuth":
            return Self.json(
                try pool.initiateAuth(
                    clientID: try request.string("ClientId"), flow: try request.string("AuthFlow"),
                    parameters: try request.map("AuthParameters")))
        case "RespondToAuthChallenge":
            return Self.json(
                try pool.respondToAuthChallenge(
                    clientID: try request.string("ClientId"), name: try request.string("ChallengeName"),
                    responses: try request.map("ChallengeResponses"), session: try request.optionalString("Session")))
        case "GetUser":
            let user = try pool.getUser(accessToken: try request.string("AccessToken"))
            return ["Username": .string(user.username), "UserAttributes": Self.attributes(user)]
        case "GlobalSignOut":
            try pool.globalSignOut(accessToken: try request.string("AccessToken"))
            return [:]
        case "ForgotPassword":
            let delivery = try pool.forgotPassword(
                clientID: try request.string("ClientId"), username: try request.string("Username"))
            return ["CodeDeliveryDetails": Self.json(delivery)]
        case "ConfirmForgotPassword":
            try pool.confirmForgotPassword(
                clientID: try request.string("ClientId"), username: try request.string("Username"),
                code: try request.string("ConfirmationCode"), password: try request.string("Password"))
            return [:]
        case "ListUserPools":
            return ["UserPools": [poolSummary]]
        default:
            return try performAdmin(operation, request)
        }
    }

    /// The admin and pool-description operations, which name the pool (`UserPoolId`).
    private func performAdmin(_ operation: String, _ request: CognitoRequest) throws(CognitoError) -> JSONValue {
        let known = [
            "AdminCreateUser", "AdminSetUserPassword", "AdminGetUser", "AdminUpdateUserAttributes",
            "AdminAddUserToGroup", "AdminRemoveUserFromGroup", "AdminDeleteUser", "ListUsers", "ListUsersInGroup",
            "ListUserPoolClients", "DescribeUserPool", "DescribeUserPoolClient", "ListGroups",
        ]
        guard known.contains(operation) else {
            throw CognitoError(
                "UnknownOperationException", "The local user pool does not implement \(operation.prefix(64)).")
        }
        let poolID = try request.string("UserPoolId")
        guard poolID == pool.settings.poolID else {
            throw CognitoError("ResourceNotFoundException", "User pool \(poolID.prefix(64)) does not exist.")
        }
        switch operation {
        case "AdminCreateUser":
            let user = try pool.adminCreateUser(
                username: try request.string("Username"), attributes: try request.attributes("UserAttributes"),
                temporaryPassword: try request.optionalString("TemporaryPassword"))
            return ["User": Self.userType(user)]
        case "AdminSetUserPassword":
            try pool.adminSetUserPassword(
                username: try request.string("Username"), password: try request.string("Password"),
                permanent: request.input["Permanent"]?.bool ?? false)
            return [:]
        case "AdminGetUser":
            let user = try pool.adminGetUser(username: try request.string("Username"))
            guard case .object(var object) = Self.userType(user) else { return [:] }
            object["UserAttributes"] = object["Attributes"]
            object["Attributes"] = nil
            return .object(object)
        case "AdminUpdateUserAttributes":
            try pool.adminUpdateUserAttributes(
                username: try request.string("Username"), attributes: try request.attributes("UserAttributes"))
            return [:]
        case "AdminAddUserToGroup":
            try pool.adminAddUserToGroup(
                username: try request.string("Username"), group: try request.string("GroupName"))
            return [:]
        case "AdminRemoveUserFromGroup":
            try pool.adminRemoveUserFromGroup(
                username: try request.string("Username"), group: try request.string("GroupName"))
            return [:]
        case "AdminDeleteUser":
            try pool.adminDeleteUser(username: try request.string("Username"))
            return [:]
        case "ListUsers":
            let users = try pool.listUsers(filter: try request.optionalString("Filter"))
            return ["Users": .array(users.map(Self.userType))]
        case "ListUsersInGroup":
            return ["Users": .array(try pool.listUsersInGroup(try request.string("GroupName")).map(Self.userType))]
        case "ListGroups":
            return ["Groups": .array(pool.settings.groups.map(groupType))]
        case "ListUserPoolClients":
            return [
                "UserPoolClients": .array(
                    pool.settings.clients.map {
                        ["ClientId": .string($0.id), "UserPoolId": .string(poolID), "ClientName": .string($0.name)]
                    })
            ]
        case "DescribeUserPoolClient":
            let id = try request.string("ClientId")
            guard let client = pool.settings.client(id) else {
                throw CognitoError("ResourceNotFoundException", "User pool client \(id.prefix(64)) does not exist.")
            }
            return ["UserPoolClient": clientType(client)]
        default:
            return ["UserPool": poolType]
        }
    }

    private var poolSummary: JSONValue {
        ["Id": .string(pool.settings.poolID), "Name": .string(pool.settings.poolName), "LambdaConfig": [:]]
    }

    private var poolType: JSONValue {
        let settings = pool.settings
        let policy = settings.passwordPolicy
        var schema: [JSONValue] = [
            ["Name": "sub", "AttributeDataType": "String", "Mutable": false, "Required": true],
            ["Name": "email", "AttributeDataType": "String", "Mutable": true, "Required": true],
            ["Name": "email_verified", "AttributeDataType": "Boolean", "Mutable": true, "Required": false],
        ]
        for attribute in settings.customAttributes {
            let constraints: JSONValue =
                attribute.kind == .string
                ? [
                    "StringAttributeConstraints": [
                        "MinLength": .string(String(attribute.minimum)),
                        "MaxLength": .string(String(attribute.maximum)),
                    ]
                ]
                : [
                    "NumberAttributeConstraints": [
                        "MinValue": .string(String(attribute.minimum)), "MaxValue": .string(String(attribute.maximum)),
                    ]
                ]
            var entry: JSONObject = [
                "Name": .string("custom:" + attribute.name), "AttributeDataType": .string(attribute.kind.rawValue),
                "Mutable": true, "Required": false,
            ]
            for (key, value) in constraints.object?.pairs ?? [] { entry[key] = value }
            schema.append(.object(entry))
        }
        return [
            "Id": .string(settings.poolID), "Name": .string(settings.poolName),
            "Arn": .string("arn:aws:cognito-idp:us-east-1:000000000000:userpool/\(settings.poolID)"),
            "Policies": [
                "PasswordPolicy": [
                    "MinimumLength": .number(policy.minimumLength), "RequireUppercase": .bool(policy.requireUppercase),
                    "RequireLowercase": .bool(policy.requireLowercase), "RequireNumbers": .bool(policy.requireNumbers),
                    "RequireSymbols": .bool(policy.requireSymbols),
                ]
            ],
            "UsernameAttributes": .array(settings.usernameAttributes.map(JSONValue.string)),
            "AutoVerifiedAttributes": .array(settings.autoVerifiedAttributes.map(JSONValue.string)),
            "SchemaAttributes": .array(schema),
            "EstimatedNumberOfUsers": .number(pool.snapshot.users.count),
            "LambdaConfig": [:],
        ]
    }

    private func clientType(_ client: AppClient) -> JSONValue {
        [
            "ClientId": .string(client.id), "ClientName": .string(client.name),
            "UserPoolId": .string(pool.settings.poolID),
            "ExplicitAuthFlows": .array(client.authFlows.map(JSONValue.string)),
            "PreventUserExistenceErrors": .string(client.preventUserExistenceErrors ? "ENABLED" : "LEGACY"),
            "IdTokenValidity": .number(Int(client.idTokenValidity / 60)),
            "AccessTokenValidity": .number(Int(client.accessTokenValidity / 60)),
            "RefreshTokenValidity": .number(Int(client.refreshTokenValidity / 86_400)),
            "TokenValidityUnits": ["IdToken": "minutes", "AccessToken": "minutes", "RefreshToken": "days"],
            "ReadAttributes": .array(client.readAttributes.map(JSONValue.string)),
            "WriteAttributes": .array(client.writeAttributes.map(JSONValue.string)),
        ]
    }

    private func groupType(_ group: PoolGroup) -> JSONValue {
        [
            "GroupName": .string(group.name), "UserPoolId": .string(pool.settings.poolID),
            "Description": .string(group.description), "Precedence": .number(group.precedence),
        ]
    }

    static func json(_ delivery: UserPool.CodeDelivery) -> JSONValue {
        [
            "Destination": .string(delivery.destination), "DeliveryMedium": .string(delivery.medium),
            "AttributeName": .string(delivery.attribute),
        ]
    }

    static func json(_ outcome: AuthOutcome) -> JSONValue {
        switch outcome {
        case .tokens(let tokens):
            var result: JSONObject = [
                "AccessToken": .string(tokens.accessToken), "ExpiresIn": .number(tokens.expiresIn),
                "TokenType": "Bearer", "IdToken": .string(tokens.idToken),
            ]
            if let refresh = tokens.refreshToken { result["RefreshToken"] = .string(refresh) }
            return ["ChallengeParameters": [:], "AuthenticationResult": .object(result)]
        case .challenge(let name, let parameters, let session):
            var answer: JSONObject = [
                "ChallengeName": .string(name),
                "ChallengeParameters": .object(
                    JSONObject(parameters.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
            ]
            if let session { answer["Session"] = .string(session) }
            return .object(answer)
        }
    }

    static func attributes(_ user: PoolUser) -> JSONValue {
        .array(user.attributeList.map { ["Name": .string($0.name), "Value": .string($0.value)] })
    }

    static func userType(_ user: PoolUser) -> JSONValue {
        [
            "Username": .string(user.username), "Attributes": attributes(user),
            "UserCreateDate": .number(Int(user.created.timeIntervalSince1970)),
            "UserLastModifiedDate": .number(Int(user.modified.timeIntervalSince1970)),
            "Enabled": .bool(user.enabled), "UserStatus": .string(user.status.rawValue),
        ]
    }
}
