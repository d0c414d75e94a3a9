/// The dashboard's charts, drawn on the server as inline SVG: rectangles and text only, no script, colours
/// from the console's stylesheet (`.series-0` …), so the pages keep their strict Content-Security-Policy and
/// show the same in every browser. Each bar carries `data-series`, `data-day` and `data-count`, and a
/// `<title>` a pointer shows, so what is drawn can be read back (by people with a screen reader, and by tests).
enum ConsoleChart {
    /// One coloured series of a daily chart: a count per day, in the chart's day order.
    struct Series {
        var name: String
        var counts: [Int64]
    }

    /// Distinct colours in the stylesheet; further series reuse them.
    static let colours = 8
    private static let width = 720.0
    private static let height = 180.0
    /// Room for the axis labels: left of the plot, below it, and right of it (half a day label sticks out).
    private static let axisWidth = 44.0
    private static let axisHeight = 18.0
    private static let rightMargin = 16.0

    /// Stacked bars, one per day of `days` (oldest first, `YYYY-MM-DD`), a segment per series, and a legend
    /// with each series' total. Series without any count are left out.
    static func dailyBars(id: String, title: String, days: [String], series: [Series]) -> String {
        let shown = series.filter { $0.counts.contains { $0 > 0 } }
        let dayTotals = days.indices.map { day in shown.reduce(0) { $0 + ($1.counts.indices.contains(day) ? $1.counts[day] : 0) } }
        let top = niceCeiling(dayTotals.max() ?? 0)
        let plotWidth = width - axisWidth - rightMargin
        let plotHeight = height - axisHeight
        let slot = plotWidth / Double(max(days.count, 1))
        var shapes: [String] = []
        for (dayIndex, day) in days.enumerated() {
            var stacked = 0.0
            for (seriesIndex, entry) in shown.enumerated() {
                let count = entry.counts.indices.contains(dayIndex) ? entry.counts[dayIndex] : 0
                guard count > 0 else { continue }
                let barHeight = Double(count) / Double(top) * plotHeight
                stacked += barHeight
                shapes.append("""
                    <rect class="series-\(seriesIndex % colours)" x="\(format(axisWidth + Double(dayIndex) * slot + slot * 0.1))" \
                    y="\(format(plotHeight - stacked))" width="\(format(slot * 0.8))" height="\(format(barHeight))" \
                    data-series="\(HTML.escape(entry.name))" data-day="\(day)" data-count="\(count)">\
                    <title>\(HTML.escape(entry.name)), \(day): \(count)</title></rect>
                    """)
            }
        }
        // Every seventh day is labelled (`11-24`), counted back from the last, so today always is.
        let dayLabels = days.enumerated().filter { (days.count - 1 - $0.offset) % 7 == 0 }.map { index, day in
            "<text class=\"axis\" x=\"\(format(axisWidth + (Double(index) + 0.5) * slot))\" y=\"\(format(height - 4))\" "
                + "text-anchor=\"middle\">\(day.suffix(5))</text>"
        }
        let legend = shown.enumerated().map { index, entry in
            "<li><span class=\"swatch series-\(index % colours)\"></span>\(HTML.escape(entry.name)) "
                + "<span class=\"total\">\(entry.counts.reduce(0, +))</span></li>"
        }
        return frame(id: id, title: title, isEmpty: shown.isEmpty, content: """
            \(axis(top: top))
            \(shapes.joined(separator: "\n"))
            \(dayLabels.joined(separator: "\n"))
            """, legend: legend)
    }

    /// Horizontal bars, one per item, largest first, at most `limit` of them.
    static func totals(id: String, title: String, items: [(name: String, count: Int64)], limit: Int = 12) -> String {
        let shown = items.filter { $0.count > 0 }.sorted { ($0.count, $1.name) > ($1.count, $0.name) }.prefix(limit)
        let top = Double(shown.first?.count ?? 1)
        let rowHeight = 22.0
        let labelWidth = 260.0
        let barSpace = width - labelWidth - 60
        let rows = shown.enumerated().map { index, item in
            let y = Double(index) * rowHeight
            return """
                <text class="label" x="\(format(labelWidth - 8))" y="\(format(y + 15))" text-anchor="end">\(HTML.escape(item.name))</text>
                <rect class="series-\(index % colours)" x="\(format(labelWidth))" y="\(format(y + 3))" \
                width="\(format(max(1, Double(item.count) / top * barSpace)))" height="\(format(rowHeight - 6))" \
                data-series="\(HTML.escape(item.name))" data-count="\(item.count)"><title>\(HTML.escape(item.name)): \(item.count)</title></rect>
                <text class="axis" x="\(format(labelWidth + Double(item.count) / top * barSpace + 6))" y="\(format(y + 15))">\(item.count)</text>
                """
        }
        return frame(id: id, title: title, isEmpty: shown.isEmpty, content: rows.joined(separator: "\n"), legend: [],
                     height: max(rowHeight, Double(shown.count) * rowHeight))
    }

    /// A chart's figure: its heading, the SVG (or a note when there is nothing to draw) and its legend.
    private static func frame(id: String, title: String, isEmpty: Bool, content: String, legend: [String],
                              height: Double = height) -> String {
        let drawing = isEmpty
            ? "<p class=\"hint\">Nothing in the last 30 days.</p>"
            : """
              <svg id="\(id)-svg" viewBox="0 0 \(format(width)) \(format(height))" role="img" aria-labelledby="\(id)-title">
              \(content)
              </svg>
              """
        return """
            <figure class="chart" id="\(id)">
            <figcaption id="\(id)-title">\(HTML.escape(title))</figcaption>
            \(drawing)
            \(legend.isEmpty ? "" : "<ul class=\"legend\">\(legend.joined())</ul>")
            </figure>
            """
    }

    /// The value axis: a baseline, a line at the top with its value, and zero.
    private static func axis(top: Int64) -> String {
        let plotHeight = height - axisHeight
        return """
            <line class="grid" x1="\(format(axisWidth))" y1="0.5" x2="\(format(width - rightMargin))" y2="0.5"/>
            <line class="grid" x1="\(format(axisWidth))" y1="\(format(plotHeight))" x2="\(format(width - rightMargin))" y2="\(format(plotHeight))"/>
            <text class="axis" x="\(format(axisWidth - 6))" y="12" text-anchor="end">\(top)</text>
            <text class="axis" x="\(format(axisWidth - 6))" y="\(format(plotHeight))" text-anchor="end">0</text>
            """
    }

    /// The smallest of 1, 2, 5 × 10ⁿ at or above `value` (at least 1), so the axis reads in round numbers.
    static func niceCeiling(_ value: Int64) -> Int64 {
        var magnitude: Int64 = 1
        while true {
            for step in [1, 2, 5] as [Int64] where step * magnitude >= value { return step * magnitude }
            magnitude *= 10
        }
    }

    /// Coordinates with one decimal: enough for a 720-unit drawing, and short markup.
    private static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int64(tenths / 10)) : String(tenths / 10)
    }
}
