import InkraRuntime

/// `bootstrap`: the Lambda custom runtime (`provided.al2023`) serving the function `_HANDLER`
/// names, from the Inkra API's list of functions.
@main
enum Bootstrap {
    static func main() async {
        await LambdaRuntime.run(.standard)
    }
}
