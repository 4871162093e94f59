/// pushwired's `--help`. PushwiredOptionsTests checks that every option listed here is one the
/// parser accepts (`Options.names`).
extension Options {
    /// What `pushwired --help` prints.
    static let usage = """
        USAGE: pushwired [options]
               pushwired backup --data-dir <dir> --to <file> [--force]
               pushwired restore --from <file> --data-dir <dir> [--force]

        Runs the Pushwire server; backup and restore copy its database (see
        'pushwired backup --help').

        OPTIONS:
          --listen <address>             host:port to listen on: 127.0.0.1:7355 (default), [::1]:7355,
                                         0.0.0.0:7355; port 0 picks a free port
          --http-listen <address|off>    host:port of the HTTP door (Connect JSON for every method,
                                         the Pushwoosh API, the console at /console/, /healthz,
                                         /metrics); off disables it
                                         (default: 127.0.0.1, port --listen's + 1, i.e. 7356; a
                                         free port when --listen's port is 0); https with --tls-cert
          --tls-cert <file>              PEM certificate chain, leaf first (an ACME client's
                                         fullchain.pem): --listen and --http-listen then speak TLS
                                         only (TLS 1.2 or later, ALPN pwire/1 and http/1.1); needs
                                         --tls-key. Re-read with the key on SIGHUP
          --tls-key <file>               the PEM private key of --tls-cert's certificate
          --tls-client-ca <file>         ask TLS clients for a certificate; the Admin service then
                                         needs one that leads to these PEM CAs, besides the admin
                                         token (calls in clear text cannot call it)
          --tls-handshake-timeout <dur>  time allowed to complete the TLS handshake (default: 10s)
          --plaintext-listen <address>   with --tls-cert, a second RPC listener in clear text (for
                                         loopback or a private network), e.g. 127.0.0.1:7354
          --http-plaintext-listen <address>
                                         with --tls-cert, a second HTTP door listener in clear text
                                         (for local tools or a scraper on a private network), e.g.
                                         127.0.0.1:7357
          --http-max-body <bytes>        largest HTTP request body accepted (default: 4194304)
          --http-request-timeout <dur>   time allowed to send one HTTP request (default: 10s)
          --http-idle-timeout <duration> close HTTP keep-alive connections idle this long
                                         (default: 60s)
          --call-metrics <on|off>        count calls and the binary door's bytes for /metrics
                                         (default: on; off only to measure what counting costs)
          --threads <n>                  event-loop threads (default: one per core)
          --data-dir <path>              data directory (default: ./data); with SQLite, one pushwired
                                         at a time; with --database-url it holds only the admin
                                         token and the sink
          --database-url <url>           keep the store in PostgreSQL instead of SQLite in the data
                                         directory: postgresql://user[:password]@host[:port]/dbname,
                                         with libpq parameters such as ?sslmode=require (default:
                                         $PUSHWIRE_DATABASE_URL; unset: SQLite); several pushwired
                                         may share one database, each following the others'
                                         changes (docs/DEPLOYMENT.md)
          --outbox-lease <duration>      how long a server's claim on a message of the outbox lasts
                                         unless renewed (every third of it): a server that dies
                                         holds its messages this long, then another one takes them
                                         over (default: 10s; at least 1s)
          --fanout-batch <devices>       on PostgreSQL, a message to more devices is cut into
                                         batches of this many, which every server claims and fans
                                         out (leases as above); 0: each message by one server
                                         (default: 20000)
          --delivery-cache-bytes <bytes> bytes of created messages (records, decoded specs)
                                         handed to the delivery scheduler in memory; past it
                                         they are read back from the outbox (default: 33554432)
          --sink <file>                  where notifications of apps without APNs credentials go, one
                                         JSON line each (default: <data-dir>/sink.jsonl); reopened
                                         on SIGHUP (for logrotate)
          --sink-max-bytes <bytes>       rotate the sink file at this size: it becomes <file>.1
                                         (older ones .2, .3, …) and a new file starts (default: never)
          --sink-keep <n>                rotated sink files kept (default: 5)
          --max-frame-size <bytes>       largest frame accepted (default: 4194304)
          --max-calls-per-connection <n> calls in flight per connection (default: 1024)
          --max-connections <n>          open connections (default: 100000); whatever it says,
                                         connections stop an eighth (16-256) under the open-file
                                         limit (ulimit -n), the rest refused and counted
          --max-connections-per-peer <n> open connections from one IPv4 address or IPv6 /64
                                         (default: 1000)
          --idle-timeout <duration>      close connections idle this long; 0 = never (default: 300s)
          --preface-timeout <duration>   time allowed to send the preface (default: 10s)
          --frame-timeout <duration>     time allowed to complete a started frame (default: 30s)
          --drain-timeout <duration>     time calls in flight get on shutdown (default: 10s)
          --max-output-buffer <bytes>    a connection's byte budget: unsent responses plus the
                                         requests and answers of its calls at work; a call's
                                         work starts only when its answer fits, and above it
                                         its input is paused (default: 4194304)
          --max-buffered-bytes <bytes>   bytes held for all connections together; above it,
                                         connections holding more than 64 KiB wait
                                         (default: 536870912)
          --socket-send-buffer <bytes|auto>
                                         the kernel's send buffer per connection (SO_SNDBUF):
                                         what a peer leaves unread waits in the connection's
                                         budget instead (default: 262144; auto: the kernel's
                                         autotuning, up to 4 MB)
          --log-level <level>            trace, debug, info, notice, warning, error, critical
                                         (default: info); debug logs one line per call
          --log-format <format>          text (key=value, default) or json (one object per line)
          --admin-token <token>          the admin token (default: <data-dir>/admin-token,
                                         generated on first start)
          --apns-url <url>               send every app's APNs requests to this https:// base URL
                                         instead of Apple's (e.g. a local APNs double:
                                         https://127.0.0.1:8443)
          --apns-ca-file <file>          trust these PEM CA certificates for APNs instead of the
                                         system's; TLS verification is never turned off
          --fcm-url <url>                send every app's FCM requests to this https:// base URL
                                         instead of https://fcm.googleapis.com (e.g. a local FCM
                                         double); OAuth2 tokens still come from each service
                                         account's token_uri
          --fcm-ca-file <file>           trust these PEM CA certificates for FCM and for the
                                         service accounts' token URIs instead of the system's
          --config <file>                `key = value` lines with the same names as the flags
                                         (without --); flags override the file
          --check                        check the integrity of the --data-dir database and exit:
                                         0 when whole, 1 when damaged (stop the server first)
          --help                         show this help
          --version                      show the version

        Durations are a number of seconds or a number with ms, s, m or h: 500ms, 30s, 5m; at most
        365 days.
        SIGTERM or SIGINT drains gracefully and exits 0; a second signal exits at once (status 1).
        SIGHUP reopens the sink file and reloads --tls-cert and --tls-key (open connections are
        kept; a pair that does not load is logged and the old one kept). pushwired warns when it
        listens in clear text on an address other than loopback (either door). Under systemd (Type=notify), pushwired reports READY=1 on
        $NOTIFY_SOCKET once it listens. The log goes to stderr.
        """
}
