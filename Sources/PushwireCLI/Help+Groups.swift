/// The `--help` texts of the group commands (`app`, `device`, `category`, `message`, `demo`).
extension Help {
    private static func page(_ body: String) -> String {
        body + "\n\n" + globalPointer
    }

    /// The value syntax of `--tag` and `--set`.
    static let tagSyntax = """
    TAG VALUES:
      text            a string (default); string:TEXT when the text itself starts with a kind
      int:5           a signed 64-bit integer (the only kind --increment changes)
      bool:true       true or false
      date:2026-11-29 a date: YYYY-MM-DD (midnight UTC), an ISO 8601 time such as
                      2026-11-29T18:30:00Z, or unix seconds (date:1796000000)
      list:a,b,c      a list of strings
    """

    /// The syntax of `--button`.
    static let buttonSyntax = """
    BUTTONS: --button 'LABEL[:OPTION,OPTION…]', numbered 0, 1, … in the order given (1–4)
      foreground      tapping opens the app (implies auth)
      background      handled without opening the app (the default)
      destructive     shown in red
      auth            the device must be unlocked first
      input=TITLE|PLACEHOLDER   a text-input button: send-button title and field placeholder
      LANG=LABEL      the label in another language, e.g. fr=Oui
      e.g. --button 'Yes:foreground,fr=Oui' --button 'No:destructive,fr=Non'
           --button 'Reply:input=Send|Type a reply'
      Labels containing ':' or ',' need --file.
    """

    /// The help of a group (`app`) or group subcommand (`app create`); nil for other topics.
    static func groupText(for topic: String) -> String? {
        switch topic {
        case "app":
            return page("""
            USAGE: pushwire app <create|list|update> [options] [global options]

            Manages applications with the admin token.
              create   pushwire app create --name <name> [APNs options] [--fcm-service-account <file>]
              list     pushwire app list
              update   pushwire app update <code> [--name <name>] [--rotate-token] [--clear-apns] [--clear-fcm] [APNs options]
                       [--fcm-service-account <file>]

            See 'pushwire app <subcommand> --help'.
            """)
        case "app create", "app update":
            let update = topic == "app update"
            return page("""
            USAGE: pushwire \(update ? "app update <code> [--name <name>] [--rotate-token] [--clear-apns] [--clear-fcm]" : "app create --name <name>") [APNs options] [--fcm-service-account <file>] [global options]

            \(update ? "Renames an application, replaces or removes its APNs settings, or rotates its access\ntoken (the old token stops working at once; the new one is printed once)." : "Creates an application and prints its code and its access token. The token is shown\nonly once (the server keeps only its hash): store it. Every application starts with the\nYesNo category. Without APNs or FCM settings its messages go to the server's file sink.")

            OPTIONS:
              --name <name>                 the operator's name for it (1–128 bytes)\(update ? "\n  --rotate-token                issue a new access token\n  --clear-apns                  remove the APNs settings\n  --clear-fcm                   remove the FCM settings" : "")
              --apns-team-id <id>           APNs settings, all four together: the Apple team id,
              --apns-key-id <id>            the signing key's id,
              --apns-topic <bundle id>      the app's bundle id,
              --apns-key-file <file.p8>     the .p8 signing key (never returned by the server)
              --apns-environment <env>      sandbox or production (default: production)
              --fcm-service-account <file>  a Firebase service account's JSON key file: Android devices
                                            are sent through FCM with it (never returned by the server)

            The admin token comes from --admin-token, $PUSHWIRE_ADMIN_TOKEN or <data-dir>/admin-token
            (--data-dir, $PUSHWIRE_DATA_DIR, default ./data).
            """)
        case "app list":
            return page("""
            USAGE: pushwire app list [global options]

            Lists every application: code, name, APNs settings (without the key), categories version.
            """)
        case "device":
            return page("""
            USAGE: pushwire device <register|track|unregister|tags> --app <code> --hwid <hwid> [options]
                   pushwire device get --token <token> --hwid <hwid>

            Does what a device does, by application code (no token needed).
              register     pushwire device register --app <code> --hwid <hwid> --push-token <hex> [options]
              track        pushwire device track --app <code> --hwid <hwid> --message <code> [--button <id> --category <id>]
              unregister   pushwire device unregister --app <code> --hwid <hwid>
              tags         pushwire device tags --app <code> --hwid <hwid> [--set …] [--increment …] [--remove …]
            Shows what the application knows of a device (with its access token).
              get          pushwire device get --token <token> --hwid <hwid>
            See 'pushwire device <subcommand> --help'.
            """)
        case "device register":
            return page("""
            USAGE: pushwire device register --app <code> --hwid <hwid> [options] [global options]

            Creates or updates a device and prints the application's categories. A device without
            a push token is stored but never sent a notification (a warning says so).

            OPTIONS:
              --app <code>             the application's code, e.g. A1B2C-3D4E5
              --hwid <hwid>            the device's hardware id (1–128 bytes)
              --push-token <hex>       the APNs push token (hex); --token is the global access
                                       token, never the push token
              --type <platform>        ios (default), android, macos, safari, chrome, huawei, … or
                                       the Pushwoosh number
              --language <code>        ISO-639-1, e.g. en
              --timezone <offset>      seconds east of UTC (3600) or ±HH:MM (+01:00)
              --user <id>              the application's id for the user
              --app-version <version>  e.g. 2.4.1
              --tag <name=value>       a tag to set (repeatable); see TAG VALUES
              --known-version <v>      the categories version the device holds; when current,
                                       no categories are sent back

            \(tagSyntax)
            """)
        case "device track":
            return page("""
            USAGE: pushwire device track --app <code> --hwid <hwid> --message <code> [--button <id> --category <id> [--text <text>]]

            Reports what the user did with a notification (Devices/TrackAction), as the app on the
            device does: without --button, an open (the body was tapped); with it, a tap of that
            button. A retried report is counted once.

            OPTIONS:
              --message <code>    the message code from the payload ("message send" prints it)
              --button <id>       the id of the tapped button (0, 1, …; "category list" shows them)
              --category <id>     the message's category id (aps.category; "message details" shows it)
              --text <text>       what the user typed into a text-input button

            EXAMPLE:
              pushwire device track --app A1B2C-3D4E5 --hwid phone-1 --message <code> --button 0 --category 65
            """)
        case "device get":
            return page("""
            USAGE: pushwire device get --token <token> --hwid <hwid> [global options]

            Prints one device of the token's application (Messages/GetDevice): platform, language,
            user id, its token state, push token, badge and tags. The token state is live
            (targeted), none (no push token), dead (the push service said it is no longer valid:
            APNs 410 Unregistered, FCM UNREGISTERED) or invalid (never valid for this app: APNs
            BadDeviceToken or DeviceTokenNotForTopic, FCM INVALID_ARGUMENT), with since when (UTC:
            APNs' timestamp of its 410, else the time of the answer). A dead or invalid token is
            not targeted until the device registers another one.
            With --json, prints GetDeviceResponse (tokenState, tokenRefusedAtMs in ms since 1970).
            """)
        case "device unregister":
            return page("""
            USAGE: pushwire device unregister --app <code> --hwid <hwid> [global options]

            Forgets the device's push token: it is no longer targeted until it registers again.
            """)
        case "device tags":
            return page("""
            USAGE: pushwire device tags --app <code> --hwid <hwid> [--set name=value …] [--increment name=N …] [--remove name …]

            Changes a device's tags, in the order given, all or nothing, and prints the result.
            Without changes, prints the tags.

            OPTIONS:
              --set <name=value>     set a tag (repeatable); see TAG VALUES
              --increment <name=N>   add N (may be negative) to an integer tag; a missing tag counts as 0
              --remove <name>        remove a tag

            \(tagSyntax)
            """)
        case "category":
            return page("""
            USAGE: pushwire category <upsert|delete|list|sync> [options] [global options]

            upsert, delete and list need the application's access token (--token or $PUSHWIRE_TOKEN);
            sync asks as a device does, by application code.
            See 'pushwire category <subcommand> --help'.
            """)
        case "category upsert":
            return page("""
            USAGE: pushwire category upsert --token <token> (--file <category.json> | --name <name> --button <spec> …) [--id <id>]

            Creates a category, or replaces category <id>, and prints it with its id.

            OPTIONS:
              --file <file>     a Category as proto3 JSON ('-' reads stdin), e.g.
                                {"name":"Rate","buttons":[{"id":0,"label":"Love it","startApplication":true},
                                 {"id":1,"label":"Later","behavior":"BUTTON_BEHAVIOR_DEFAULT"}]}
              --name <name>     the category's name (1–64 bytes, unique in the application)
              --button <spec>   a button (repeatable, 1–4); see BUTTONS
              --id <id>         replace this category instead of creating one

            \(buttonSyntax)
            """)
        case "category delete":
            return page("""
            USAGE: pushwire category delete --token <token> --id <id> [global options]

            Deletes a category; messages already sent with it keep their statistics.
            """)
        case "category list":
            return page("""
            USAGE: pushwire category list --token <token> [global options]

            Lists the application's categories with their buttons, and the categories version.
            """)
        case "category sync":
            return page("""
            USAGE: pushwire category sync --app <code> [--known-version <v>] [global options]

            Asks for the categories as a device does: "not modified" when <v> is current, else
            the full set and its version. With --json: {"categoriesNotModified", "categories",
            "categoriesVersion"}, the names 'device register --json' uses ('pushwire call
            Devices/SyncCategories' prints the wire's: notModified, version).
            """)
        case "message":
            return page("""
            USAGE: pushwire message <send|details|cancel> --token <token> [options] [global options]

              send      create a message (to devices, users, platforms, or every device)
              details   its status, delivery counts, opens and taps per button
              cancel    cancel a scheduled message that has not gone out ('delete' is the same)
            See 'pushwire message <subcommand> --help'.
            """)
        case "message send":
            return page("""
            USAGE: pushwire message send --token <token> (--file <msg.json> | --content <text> [options])

            Creates a message and prints its code, the named devices the application does not
            know, and the named devices it holds without a push token. Without targeting options it
            goes to every registered device of the application; selectors combine with AND.
            Devices without a push token are not targeted.

            OPTIONS:
              --file <file>                a Notification, or a CreateMessageRequest with
                                           "notifications", as proto3 JSON ('-' reads stdin);
                                           the way to tag conditions, subtitles' translations, …
              --content <text>             the body in the default language
              --language-content <l=text>  the body in another language (repeatable), e.g. fr=Bonjour
              --title <text>               the title; --language-title <l=text> translates it
              --subtitle <text>            the subtitle
              --category <id|name>         the category whose buttons it shows, by id or by name
                                           (e.g. YesNo; see 'category list')
              --device <hwid>              target this device (repeatable)
              --user <user id>             target this user's devices (repeatable)
              --platform <platform>        target this platform, e.g. ios (repeatable)
              --data <json object>         custom keys for the payload root, e.g. '{"order":42}'
              --send-at <time>             ISO 8601 (2026-11-29T18:30:00Z) or unix seconds (default: now)
              --transaction-id <id>        a retry with the same id sends nothing twice
              --badge <n|+n|-n>            set the badge, or change it by n
              --sound <name>               e.g. default
              --thread-id <id>             groups notifications in Notification Center
              --trim                       trim the body instead of failing when the payload
                                           exceeds 4096 bytes
            """)
        case "message details":
            return page("""
            USAGE: pushwire message details --token <token> <message code> [global options]

            Prints the status (scheduled, sending, done, cancelled) and the counts: targeted, sent,
            failed (by reason), invalid tokens, the same per platform (iOS, Android, …), opened, taps
            per button with the button labels.
            """)
        case "message cancel", "message delete":
            return page("""
            USAGE: pushwire message cancel --token <token> <message code> [global options]

            Cancels a scheduled message that has not started going out (Messages/DeleteMessage);
            'message delete' is another name for it. Its details then say "cancelled".
            """)
        case "demo":
            return page("""
            USAGE: pushwire demo [--admin-token <token>] [global options]

            The tour to run first, against a running pushwired:
              1. creates an application (admin token: --admin-token, $PUSHWIRE_ADMIN_TOKEN or
                 <data-dir>/admin-token, which pushwired writes on first start; --data-dir,
                 $PUSHWIRE_DATA_DIR, default ./data),
              2. shows its predefined YesNo category,
              3. registers three iOS devices with languages en, fr and de,
              4. sends them a message with the YesNo category; without APNs credentials it goes
                 to the server's file sink (<data-dir>/sink.jsonl by default),
              5. waits until the message is done, then reports a Yes tap, a No tap and an open
                 (Devices/TrackAction),
              6. prints the message's details: targeted, sent, opened, taps per button.
            With --json, prints {"application","accessToken","messageCode","details"}.

            EXAMPLE:
              pushwired --data-dir ./data &
              pushwire demo
            """)
        default:
            return nil
        }
    }
}
