
/// The page's look: one inline style sheet (no web font, nothing fetched) and the series colours.
enum DashboardStyle {
    /// Accent colours for series with no meaning of their own (currencies), in order; distinct for
    /// common colour-vision deficiencies as far as eight colours can be.
    static let palette = ["#2563eb", "#e8590c", "#0f9d76", "#8b5cf6", "#d6336c", "#0891b2", "#ca8a04", "#475569"]

    static let paid = "#2563eb"
    static let trials = "#a855f7"
    static let gross = "#2563eb"
    static let refunded = "#e8590c"
    static let updated = "#2563eb"
    static let unchanged = "#94a3b8"
    static let invalid = "#f59e0b"
    static let accountGone = "#8b5cf6"
    static let failed = "#dc2626"
    static let succeeded = "#0f9d76"
    static let notifications = "#0891b2"
    static let lostOrders = "#e8590c"

    /// The colour of the n-th currency (cycling past the palette's end).
    static func color(at index: Int) -> String { palette[index % palette.count] }

    static let css = """
        :root{color-scheme:light;--bg:#f5f6f8;--card:#fff;--ink:#1f2933;--muted:#5f6b7a;--line:#e4e7eb;--accent:#2563eb}
        *{box-sizing:border-box}
        html{-webkit-text-size-adjust:100%}
        body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
        main{max-width:1240px;margin:0 auto;padding:32px 24px 48px}
        header.page{margin-bottom:28px}
        h1{font-size:28px;line-height:1.2;margin:0 0 6px;letter-spacing:-.01em}
        h2{font-size:19px;margin:40px 0 14px;letter-spacing:-.005em}
        h3{font-size:15px;margin:0}
        p{margin:0}
        code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;background:#eef0f3;padding:1px 5px;border-radius:4px;overflow-wrap:anywhere}
        .meta{color:var(--muted)}
        .meta span+span::before{content:"·";margin:0 8px;color:#a0a8b3}
        .note{color:var(--muted);font-size:13px;margin-top:2px}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,170px),1fr));gap:14px}
        .card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px;min-width:0}
        .card .label{color:var(--muted);font-size:13px}
        .card .value{font-size:26px;font-weight:650;line-height:1.25;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
        .card .value small{font-size:14px;font-weight:500;color:var(--muted);margin-left:4px;white-space:nowrap;display:inline-block}
        .card.lead{border-color:#bfd3fb;background:#f3f7ff}
        .card.wide{grid-column:span 2}
        .card .detail{color:var(--muted);font-size:13px;overflow-wrap:anywhere}
        .statusbar{display:flex;height:10px;border-radius:5px;overflow:hidden;margin:14px 0 4px;background:var(--line)}
        .statusbar span{min-width:2px}
        .subhead{font-size:13px;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;margin:22px 0 10px}
        .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:20px}
        .chart{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 18px 12px;margin:0;min-width:0}
        .chart.span{grid-column:1/-1}
        .plot{overflow-x:auto;margin-top:8px}
        .plot svg{display:block;width:100%;min-width:440px;height:auto}
        .chart.span .plot svg{min-width:880px}
        .chart .grid{stroke:#edf0f3;stroke-width:1}
        .chart .zero{stroke:#9aa5b1;stroke-width:1}
        .chart .tick{fill:#6b7785}
        .chart .unit{fill:#3e4c59;font-weight:600}
        .chart rect.mark:hover,.chart circle.mark:hover{opacity:.75}
        .legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding:0;margin:10px 0 0;font-size:13px;color:#3e4c59}
        .legend li{display:flex;align-items:center;gap:6px}
        .swatch{display:inline-block;width:12px;height:12px;border-radius:3px}
        .empty{color:var(--muted);background:#f8f9fb;border:1px dashed #cfd5dc;border-radius:8px;padding:14px 16px;margin-top:12px}
        details{margin-top:10px;font-size:13px}
        summary{cursor:pointer;color:var(--muted);padding:4px 0}
        .table-wrap{overflow-x:auto;max-height:420px;overflow-y:auto;margin-top:4px;border:1px solid var(--line);border-radius:8px}
        table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
        th,td{padding:5px 10px;text-align:left;border-bottom:1px solid #f0f2f4;white-space:nowrap}
        th{position:sticky;top:0;background:#f8f9fb;font-weight:600;color:#3e4c59}
        td.num,th.num{text-align:right}
        td.none{color:#a0a8b3}
        tbody tr:last-child td{border-bottom:0}
        footer{margin-top:44px;color:var(--muted);font-size:13px;border-top:1px solid var(--line);padding-top:16px}
        footer p+p{margin-top:6px}
        @media (max-width:600px){main{padding:20px 14px}.card.wide{grid-column:auto}h1{font-size:23px}}
        @media print{body{background:#fff}.chart,.card{break-inside:avoid}}
        """
}
