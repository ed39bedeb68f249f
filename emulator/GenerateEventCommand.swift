import ArgumentParser
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON

struct GenerateEventCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-event",
        abstract: "Print a sample event of a supported kind, carrying a fresh development token.",
        discussion: """
            Kinds: \(SampleEvents.Kind.allCases.map(\.rawValue).joined(separator: ", ")). Every kind needs --sub, \
            the token's user; an unknown kind is refused with the list of kinds.

            Examples, from the repository root:
              swift run inkra-emulator generate-event rest-generate --sub alice
              swift run inkra-emulator generate-event http-generate --sub bob \\
                --tier premium --body '{"topic":"my first job","count":3}'
            """
    )

    @Argument(help: "The kind of event.")
    var kind: Choice<SampleEvents.Kind>

    @Option(help: "The topic/count/length JSON body for generate events.")
    var body: String = #"{"topic":"my grandmother's childhood in Naples","length":"short"}"#

    @Flag(inversion: .prefixedNo, help: "Carry a fresh development token in the event.")
    var token = true

    @OptionGroup var claims: TokenClaimOptions

    func run() throws {
        let instant = claims.instant
        let token = self.token ? try claims.mint(with: try DevelopmentKeyLocator.load(), at: instant) : nil
        var event = SampleEvents.event(kind.value, token: token, body: body, at: instant)
        event.set(.string(kind.value.function.rawValue), at: ["x-inkra-function"])
        Output.out(event.prettyJSONString)
    }
}
