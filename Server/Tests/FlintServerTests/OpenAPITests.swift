@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The OpenAPI document at `/openapi.json` lists exactly what the router serves, with complete schemas.
@Suite struct OpenAPITests {
    @Test(arguments: [true, false])
    func documentListsEveryRouteAndNothingElse(emulator: Bool) async throws {
        try await withServer(emulator: emulator) { server, client in
            let reply = try await client.send("GET", "/openapi.json", includeKey: false)
            #expect(reply.status == 200)
            #expect(reply["openapi"]?.stringValue == "3.1.0")
            let paths = try #require(reply["paths"]?.objectValue)
            let documented = Set(paths.flatMap { path, operations in
                (operations.objectValue ?? [:]).keys.map { "\($0.uppercased()) \(path)" }
            })
            let routed = Set(server.server.routes)
            #expect(routed.subtracting(documented).sorted() == [], "routes missing from the document")
            #expect(documented.subtracting(routed).sorted() == [], "documented operations the router does not serve")
            #expect(documented.contains("POST /v1/accounts:signUp"))
            #expect(documented.contains("POST /identitytoolkit.googleapis.com/v1/projects/{projectId}:createSessionCookie"))
            #expect(documented.contains("GET /emulator/v1/projects/{projectId}/oobCodes") == emulator)
        }
    }

    @Test func everyOperationIsWellFormed() async throws {
        try await withServer { server, _ in
            let (document, incomplete) = server.server.openAPIDocument.make()
            #expect(incomplete.sorted() == [], "wire types whose decoding stopped before the end")
            let schemas = try #require(document["components"]?["schemas"]?.objectValue)
            var operationIDs: [String] = []
            for (path, operations) in try #require(document["paths"]?.objectValue) {
                for (method, operation) in try #require(operations.objectValue) {
                    operationIDs.append(try #require(operation["operationId"]?.stringValue))
                    #expect(operation["responses"]?["default"] != nil, "\(method) \(path) documents no error")
                    // Every path template parameter is declared.
                    let declared = Set((operation["parameters"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
                    for name in path.split(separator: "{").dropFirst().compactMap({ $0.split(separator: "}").first }) {
                        #expect(declared.contains(String(name)), "\(method) \(path): {\(name)} undeclared")
                    }
                }
            }
            #expect(Set(operationIDs).count == operationIDs.count, "operation ids repeat")
            // Every reference resolves.
            let references = Self.references(in: document)
            #expect(references.count > 100)
            for reference in references {
                #expect(schemas[String(reference.dropFirst("#/components/schemas/".count))] != nil, "unresolved \(reference)")
            }
        }
    }

    @Test func schemasFollowTheWireTypes() async throws {
        try await withServer { server, _ in
            let (document, _) = server.server.openAPIDocument.make()
            let schemas = try #require(document["components"]?["schemas"])
            // Required where decoding requires it; optional fields also take null, as Google's JSON mapping does.
            let response = try #require(schemas["SecureTokenResponse"])
            let required = Set(response["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            #expect(required.isSuperset(of: ["id_token", "refresh_token"]))
            let signUp = try #require(schemas["SignUpRequest"]?["properties"])
            #expect(signUp["email"] == ["type": ["string", "null"]])
            #expect(signUp["mfaInfo"] == ["type": ["array", "null"], "items": ["$ref": "#/components/schemas/MFAEnrollment"]])
            #expect(signUp["tenantId"] == ["type": ["string", "null"]])
            // Enumerations list their cases; a `null` a type checks itself is not declared nullable.
            let oob = try #require(schemas["SendOobCodeRequest"]?["properties"]?["requestType"])
            #expect(oob["anyOf"]?.arrayValue?.first?["oneOf"]?.arrayValue?.first?["enum"]?.arrayValue?.contains("EMAIL_SIGNIN") == true)
            #expect(schemas["MFAEnrollments"]?["properties"]?["enrollments"]?["type"] == "array")
        }
    }

    /// Every `$ref` anywhere in `value`.
    private static func references(in value: JSONValue) -> [String] {
        switch value {
        case .object(let members):
            members.flatMap { key, member in key == "$ref" ? [member.stringValue ?? ""] : references(in: member) }
        case .array(let elements): elements.flatMap(references(in:))
        default: []
        }
    }
}
