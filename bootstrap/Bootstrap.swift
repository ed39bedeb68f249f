import InkraRuntime
import InkraTime

/// `bootstrap`: the Lambda custom runtime (`provided.al2023`) serving the function `_HANDLER`
/// names, from the Inkra API's list of functions.
@main
enum Bootstrap {
    static func main() async {
        // The composition root: the one place the runtime's real time is read.
        await LambdaRuntime.run(.standard, clock: { Timestamp.now })
    }
}
