import FlintWire
import Foundation

/// The console's markup: the frame every page shares and the few form widgets its pages are made of.
/// Pages are plain HTML forms (no script, except the login page's signer), styled by one stylesheet the
/// Content-Security-Policy allows by hash.
enum ConsoleHTML {
    /// A navigation entry: the page's `data-page` name, its path and its title.
    struct Section {
        var page: String
        var path: String
        var title: String
    }

    static let sections = [
        Section(page: "users", path: "/console/users", title: "Users"),
        Section(page: "sign-in", path: "/console/sign-in", title: "Sign-in methods"),
        Section(page: "oauth-clients", path: "/console/oauth-clients", title: "OAuth clients"),
        Section(page: "oauth-resources", path: "/console/oauth-resources", title: "OAuth resources"),
        Section(page: "test-numbers", path: "/console/test-numbers", title: "Test phone numbers"),
        Section(page: "settings", path: "/console/settings", title: "Settings"),
        Section(page: "templates", path: "/console/templates", title: "Email templates"),
        Section(page: "dashboard", path: "/console/dashboard", title: "Dashboard"),
        Section(page: "tenants", path: "/console/tenants", title: "Tenants"),
        Section(page: "audit", path: "/console/audit", title: "Audit trail"),
    ]

    /// A whole page. `page` becomes `<body data-page>`, which tests wait for; `notice` and `error` are
    /// shown above the content (`#notice`, `#error`).
    static func document(page: String, title: String, body: String, script: String? = nil) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>\(HTML.escape(title)) · Flint console</title>
        <style>\(style)</style>
        </head>
        <body data-page="\(HTML.escape(page))">
        \(body)
        \(script.map { "<script>\($0)</script>" } ?? "")
        </body>
        </html>

        """
    }

    /// A signed-in page: the header (project, open tenant, sign-out), the navigation, the messages and `content`.
    static func signedIn(page: String, title: String, context: ConsoleContext, content: String) -> String {
        let navigation = sections.map { section in
            let current = section.page == page || (page == "user" && section.page == "users")
            return "<a id=\"nav-\(section.page)\" href=\"\(section.path)\"\(current ? " aria-current=\"page\"" : "")>"
                + "\(HTML.escape(section.title))</a>"
        }.joined(separator: "\n")
        let projectSwitch = context.projectIDs.count > 1 && context.session.isOwner
            ? form("/console/project", context: context, id: "project-form", content: """
                <label for="project">Project</label>
                <select id="project" name="project">\(context.projectIDs.map { id in
                    "<option\(id == context.projectID ? " selected" : "")>\(HTML.escape(id))</option>"
                }.joined())</select>
                <button type="submit" id="switch-project">Switch</button>
                """)
            : "<span id=\"project-id\">\(HTML.escape(context.projectID))</span>"
        let openTenant = context.tenant.map { tenant in
            form("/console/tenants/close", context: context, id: "tenant-form", content: """
                <span class="tenant">Tenant \(HTML.escape(tenant.settings.tenant?.displayName ?? ""))
                (<span id="tenant-id">\(HTML.escape(tenant.realm.tenantID ?? ""))</span>)</span>
                <button type="submit" id="close-tenant">Back to the project</button>
                """)
        } ?? ""
        let messages = (context.notice.map { "<p id=\"notice\" role=\"status\">\(HTML.escape($0))</p>" } ?? "")
            + (context.error.map { "<p id=\"error\" role=\"alert\">\(HTML.escape(readable($0)))</p>" } ?? "")
        return document(page: page, title: title, body: """
            <header>
            <strong>Flint console</strong>
            \(projectSwitch)
            \(openTenant)
            <span class="mode">\(context.mode.rawValue)</span>
            \(form("/console/logout", context: context, id: "sign-out-form", content: "<button type=\"submit\" id=\"sign-out\">Sign out</button>"))
            </header>
            <nav>
            \(navigation)
            </nav>
            <main>
            <h1>\(HTML.escape(title))</h1>
            \(messages)
            \(content)
            </main>
            """)
    }

    /// An error message for people: `INVALID_ARGUMENT : At most 10 …` shows as its detail.
    static func readable(_ message: String) -> String {
        guard let range = message.range(of: " : ") else { return message }
        return String(message[range.upperBound...])
    }

    /// A POST form carrying the session's anti-CSRF token; a `card` is boxed like a section.
    static func form(_ action: String, context: ConsoleContext, id: String? = nil, card: Bool = false,
                     content: String) -> String {
        """
        <form method="post" action="\(HTML.escape(action))"\(id.map { " id=\"\(HTML.escape($0))\"" } ?? "")\(card ? " class=\"card\"" : "")>
        <input type="hidden" name="csrf" value="\(HTML.escape(context.session.csrfToken))">
        \(content)
        </form>
        """
    }

    /// A labelled checkbox; its form field is `name`, by default the id.
    static func checkbox(_ id: String, name: String? = nil, label: String, checked: Bool) -> String {
        "<label class=\"check\"><input type=\"checkbox\" id=\"\(id)\" name=\"\(name ?? id)\" value=\"on\"\(checked ? " checked" : "")> "
            + "\(HTML.escape(label))</label>"
    }

    /// A labelled input; its form field is `name`, by default the id.
    static func textField(_ id: String, name: String? = nil, label: String, value: String?, type: String = "text",
                          placeholder: String? = nil, extra: String = "") -> String {
        """
        <label for="\(id)">\(HTML.escape(label))</label>
        <input type="\(type)" id="\(id)" name="\(name ?? id)" value="\(HTML.escape(value ?? ""))"\(placeholder.map { " placeholder=\"\(HTML.escape($0))\"" } ?? "")\(extra)>
        """
    }

    static func textArea(_ id: String, name: String? = nil, label: String, value: String, rows: Int = 4) -> String {
        """
        <label for="\(id)">\(HTML.escape(label))</label>
        <textarea id="\(id)" name="\(name ?? id)" rows="\(rows)">\(HTML.escape(value))</textarea>
        """
    }

    /// A labelled drop-down of `options` (value, title); its form field is `name`, by default the id.
    static func select(_ id: String, name: String? = nil, label: String, options: [(value: String, title: String)],
                       selected: String?) -> String {
        let choices = options.map { option in
            "<option value=\"\(HTML.escape(option.value))\"\(option.value == selected ? " selected" : "")>\(HTML.escape(option.title))</option>"
        }.joined()
        return """
            <label for="\(id)">\(HTML.escape(label))</label>
            <select id="\(id)" name="\(name ?? id)">\(choices)</select>
            """
    }

    /// A table with a header row; cells are already HTML.
    static func table(id: String, header: [String], rows: [(attributes: String, cells: [String])]) -> String {
        """
        <table id="\(id)">
        <thead><tr>\(header.map { "<th>\(HTML.escape($0))</th>" }.joined())</tr></thead>
        <tbody>
        \(rows.map { row in "<tr\(row.attributes)>\(row.cells.map { "<td>\($0)</td>" }.joined())</tr>" }.joined(separator: "\n"))
        </tbody>
        </table>
        """
    }

    /// Epoch milliseconds as the Admin API writes times (`2026-11-24T02:38:04.000Z`), or an empty string.
    static func date(milliseconds: Int64?) -> String {
        milliseconds.map(UserRecord.iso8601(milliseconds:)) ?? ""
    }

    /// A day as Firebase's console lists users' dates, `Nov 24, 2026` (UTC), in a `<time>` whose `datetime` and tooltip
    /// are the whole time (`2026-11-24T02:38:04.000Z`); an empty string for none.
    static func day(milliseconds: Int64?) -> String {
        guard let milliseconds else { return "" }
        let time = UserRecord.iso8601(milliseconds: milliseconds)
        let digits = time.split(separator: "T")[0].split(separator: "-").compactMap { Int($0) }
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][digits[1] - 1]
        return "<time datetime=\"\(time)\" title=\"\(time)\">\(month) \(digits[2]), \(digits[0])</time>"
    }

    static let style = """
        :root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328}
        body{margin:0;background:#f6f8fa}
        header{display:flex;gap:1rem;align-items:center;padding:.6rem 1.5rem;background:#24292f;color:#fff}
        header form{margin:0 0 0 auto}header select{margin:0 .3rem}header label{color:#fff;margin:0}
        header form#project-form{margin:0;display:flex;align-items:center}
        header form#tenant-form{margin:0;display:flex;gap:.5rem;align-items:center}
        .tenant{padding:.1rem .6rem;border-radius:1rem;background:#8250df}
        .mode{font-size:.8rem;padding:.1rem .5rem;border-radius:1rem;background:#6e7781}
        nav{display:flex;flex-wrap:wrap;gap:.2rem;padding:.4rem 1.5rem;background:#fff;border-bottom:1px solid #d0d7de}
        nav a{padding:.4rem .7rem;border-radius:.4rem;color:#0969da;text-decoration:none}
        nav a[aria-current]{background:#ddf4ff;font-weight:600}
        main{max-width:60rem;margin:1.5rem auto;padding:0 1.5rem}
        h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}form.card h2{margin-top:0}
        section,form.card{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem 1.2rem;margin:1rem 0}
        label{display:block;margin:.6rem 0 .2rem;font-weight:600;font-size:.9rem}
        label.check{font-weight:400;display:flex;gap:.4rem;align-items:center}
        input[type=text],input[type=search],input[type=password],input[type=number],textarea,select{font:inherit;padding:.35rem .5rem;border:1px solid #d0d7de;border-radius:.35rem;box-sizing:border-box}
        input[type=text],input[type=search],input[type=password],textarea{width:100%}
        textarea{font-family:ui-monospace,monospace;font-size:.85rem}input[type=file]{display:block}
        button{font:inherit;margin-top:.8rem;padding:.4rem .9rem;border-radius:.4rem;border:1px solid #1f883d;background:#1f883d;color:#fff;cursor:pointer}
        button.secondary{background:#f6f8fa;color:#24292f;border-color:#d0d7de}button.danger{background:#cf222e;border-color:#cf222e}
        header button{margin:0;background:transparent;border-color:#8c959f}
        table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #d0d7de;margin:1rem 0}
        th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #d0d7de;font-size:.9rem;vertical-align:top}
        td form{margin:0}td button{margin:0;padding:.15rem .6rem}
        dl{display:grid;grid-template-columns:12rem 1fr;gap:.3rem 1rem;background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem}
        dt{font-weight:600}dd{margin:0;word-break:break-all}
        #notice{background:#dafbe1;border:1px solid #4ac26b;padding:.6rem .8rem;border-radius:.4rem}
        #error{background:#ffebe9;border:1px solid #ff8182;padding:.6rem .8rem;border-radius:.4rem}
        .inline{display:flex;gap:.6rem;align-items:flex-end;flex-wrap:wrap}.inline label{margin-top:0}.inline button{margin:0}
        .hint{color:#59636e;font-size:.85rem}
        .secret{background:#fff8c5;border:1px solid #d4a72c;border-radius:.5rem;padding:1rem 1.2rem;margin:1rem 0}
        .secret code{display:block;word-break:break-all;font-size:1rem;margin:.2rem 0 .6rem}td code{word-break:break-all}
        tr.disabled td{color:#6e7781}.badge{font-size:.75rem;padding:0 .4rem;border-radius:1rem;background:#eaeef2;color:#59636e}
        .pager{display:flex;gap:1.5rem;justify-content:flex-end}
        .login{max-width:26rem;margin:4rem auto;background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1.5rem}
        figure.chart{background:#fff;border:1px solid #d0d7de;border-radius:.5rem;padding:1rem 1.2rem;margin:1rem 0}
        figure.chart figcaption{font-weight:600;margin-bottom:.5rem}figure.chart svg{width:100%;height:auto;display:block}
        svg .axis,svg .label{font-size:11px;fill:#59636e}svg .grid{stroke:#d0d7de;stroke-width:1}
        .legend{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;list-style:none;padding:0;margin:.6rem 0 0;font-size:.85rem}
        .legend .total{color:#59636e}.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:.15rem;margin-right:.35rem;vertical-align:-.1rem}
        .series-0{fill:#0969da;background:#0969da}.series-1{fill:#1a7f37;background:#1a7f37}.series-2{fill:#bf8700;background:#bf8700}
        .series-3{fill:#cf222e;background:#cf222e}.series-4{fill:#8250df;background:#8250df}.series-5{fill:#1b7c83;background:#1b7c83}
        .series-6{fill:#bc4c00;background:#bc4c00}.series-7{fill:#6e7781;background:#6e7781}
        """
}
