import PushwireWire

/// The `--help` texts.
enum Help {
    static let version = PushwireVersion.current

    static let exitCodes = """
    EXIT CODES:
      0   success (for health: the server or service is SERVING)
      1   failure: the server could not be reached, or the call ended with a status other
          than OK (printed to stderr as NAME: message, e.g. NOT_FOUND: device not found),
          or health reported a status other than SERVING
      64  usage error: unknown command or option, missing argument, invalid JSON, unknown
          method or JSON field
    """

    static let globalOptions = """
    GLOBAL OPTIONS:
      -s, --server <host:port>  server address; [::1]:7355 for IPv6; pwires://host:port for TLS
                                (default: $PUSHWIRE_SERVER or 127.0.0.1:7355)
      --tls                     connect over TLS, verifying the server's certificate against
                                the system's CAs and the host name dialled
      --ca-file <file>          trust these PEM CA certificates instead (implies --tls)
      --server-name <name>      the name the certificate must carry, e.g. when dialling an
                                IP address (implies --tls)
      --client-cert <file>      a PEM client certificate (chain) presented when the server asks:
                                pushwired --tls-client-ca needs one for the Admin service
                                (implies --tls)
      --client-key <file>       the PEM key of --client-cert (default: in --client-cert's file)
      --token <token>           sent as "authorization: Bearer <token>" (default: $PUSHWIRE_TOKEN)
      --admin-token <token>     the admin token for app and demo (default: $PUSHWIRE_ADMIN_TOKEN,
                                then <data-dir>/admin-token)
      --data-dir <path>         pushwired's data directory, where it keeps admin-token
                                (default: $PUSHWIRE_DATA_DIR or ./data)
      --timeout <seconds>       deadline of the connection and of each call (default: 10)
      --json                    machine-readable output: one JSON document on stdout,
                                errors as {"error": {"code", "status", "message"}}
      -h, --help                show help
      --version                 show the version
    """

    /// What a subcommand's help says instead of repeating the global options.
    static let globalPointer = """
    Global options (--server, --tls, --ca-file, --server-name, --client-cert, --client-key, --token,
    --admin-token, --data-dir, --timeout, --json) and exit codes: see 'pushwire --help'.
    """

    static let overview = """
    USAGE: pushwire [global options] <command> [options]

    A command-line client for a Pushwire server.

    COMMANDS:
      health    report whether the server (or one service) is serving
      methods   list the methods the server offers
      call      call a method with a JSON request, print the JSON response
      ping      measure the round trip of Ping frames
      app       create, list and update applications (admin token)
      device    register devices, report their opens and taps, set and read their tags
      category  upsert, delete, list and sync categories of action buttons
      message   send messages, read their details, cancel scheduled ones
      demo      the tour: app, YesNo category, three devices, a message, taps, statistics

    See 'pushwire <command> --help' for a command's options.

    \(globalOptions)

    \(exitCodes)
    """

    static func text(for command: String?) -> String {
        switch command {
        case "health":
            return """
            USAGE: pushwire health [--service <name>] [global options]

            Calls /pushwire.v1.Health/Check and prints the serving status.

            OPTIONS:
              --service <name>   a service such as pushwire.v1.Devices (default: the whole server)

            \(globalPointer)
            """
        case "methods":
            return """
            USAGE: pushwire methods [--local] [global options]

            Lists every method the server offers (Reflection/ListMethods), with its request and
            response message types.

            OPTIONS:
              --local   list the methods this client knows, without asking a server

            \(globalPointer)
            """
        case "call":
            return """
            USAGE: pushwire call <method> [--data <json>] [--emit-defaults] [global options]

            Turns the JSON into the method's request message, calls it, and prints the response
            as JSON (proto3 JSON mapping, as grpcurl: lowerCamel or snake_case field names, enums
            by name or number, 64-bit integers as strings, bytes as base64).

            ARGUMENTS:
              <method>   /pushwire.v1.Devices/RegisterDevice, pushwire.v1.Devices/RegisterDevice,
                         Devices/RegisterDevice or pushwire.v1.Devices.RegisterDevice

            OPTIONS:
              -d, --data <json>   the request; '@file' reads a file, '-' reads stdin (default: {})
              --emit-defaults     print fields that are at their default value too (0, false, "",
                                  []), which proto3 JSON leaves out otherwise

            EXAMPLE:
              pushwire call Devices/RegisterDevice --token $APP_TOKEN \\
                --data '{"application":"ABCDE-12345","hwid":"h1","pushToken":"…","deviceType":"DEVICE_TYPE_IOS"}'

            \(globalPointer)
            """
        case "ping":
            return """
            USAGE: pushwire ping [--count <n>] [global options]

            Sends Ping frames one at a time and prints each round-trip time.

            OPTIONS:
              --count <n>   how many pings (default: 1)

            \(globalPointer)
            """
        default:
            return command.flatMap(groupText(for:)) ?? overview
        }
    }
}
