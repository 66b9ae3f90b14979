/* report_html.c — the report page (report.h): static HTML and SVG written here, so the page
 * shows everything without its script; the script only adds selecting, sorting and finding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/report.h"

/* Text for HTML content and attribute values. */
static void html(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char STYLE[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1d2733;"
    "background:#f6f7f9}"
    "header{background:#1d3557;color:#fff;padding:18px 28px 12px}header h1{margin:0;font-size:22px}"
    "header .sub{margin:2px 0 10px;opacity:.8;font-family:monospace}"
    "dl.summary{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0}dl.summary div{display:flex;gap:6px}"
    "dl.summary dt{opacity:.75}dl.summary dd{margin:0;font-weight:600}"
    "nav{margin-top:10px}nav a{color:#a8dadc;margin-right:16px;text-decoration:none}"
    "main{padding:8px 28px 30px;max-width:1400px}section{margin-top:22px}h2{font-size:18px;margin:0 0 6px}"
    ".note{color:#5b6775;margin:2px 0 10px;max-width:900px}"
    ".maprow{display:flex;gap:20px;align-items:flex-start;flex-wrap:wrap}"
    "#mapsvg{background:#fff;border:1px solid #d5dae1;border-radius:6px;width:540px;height:540px;flex:none}"
    "#mapsvg circle.t{fill:#457b9d;fill-opacity:.45;stroke:#1d3557;stroke-width:1;cursor:pointer}"
    "#mapsvg circle.t:hover{fill-opacity:.7}#mapsvg circle.sel{fill:#e63946;fill-opacity:.75}"
    "#mapsvg circle.dim{fill-opacity:.08;stroke-opacity:.2}"
    "#mapsvg text{font-size:11px;pointer-events:none;fill:#1d2733}#mapsvg .axis{stroke:#b8c0cc;stroke-dasharray:4 4}"
    "#panel{flex:1;min-width:300px;max-width:560px}#panel .topic{margin:0}"
    ".controls{display:flex;gap:18px;align-items:center;margin:6px 0 12px;flex-wrap:wrap}"
    "#cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:14px}"
    ".topic{background:#fff;border:1px solid #d5dae1;border-radius:6px;padding:10px 12px}"
    ".topic.sel{border-color:#e63946;box-shadow:0 0 0 2px #e6394633}"
    ".topic h3{margin:0 0 6px;font-size:15px;cursor:pointer}.topic h3 .share{color:#457b9d;margin-left:6px}"
    ".topic .coh{display:block;font-weight:400;font-size:12px;color:#5b6775}"
    "table.words{border-collapse:collapse;width:100%}table.words td{padding:1px 4px;font-size:13px}"
    "td.w{white-space:nowrap;width:1%}td.p{color:#5b6775;font-size:11px;text-align:right;width:1%}"
    "td.bar{position:relative;height:14px}td.bar span{position:absolute;left:0;top:3px;height:10px;border-radius:2px}"
    "td.bar .tot{background:#d9dee5}td.bar .in{background:#e63946}"
    "details{margin-top:8px}summary{cursor:pointer;color:#1d3557;font-size:13px}"
    "ol.docs{padding-left:20px;margin:6px 0 0}ol.docs li{margin-bottom:6px;font-size:12px}"
    ".dmeta{color:#5b6775}.snip{color:#1d2733}"
    ".charts{display:flex;gap:20px;flex-wrap:wrap}.charts svg{background:#fff;border:1px solid #d5dae1;"
    "border-radius:6px}.charts text{font-size:11px;fill:#5b6775}.charts .grid{stroke:#edf0f3}"
    ".charts .frame{stroke:#9aa5b1;fill:none}.charts path{fill:none;stroke-width:2}"
    "footer{margin-top:30px;color:#8a96a3;font-size:12px}";

/* Pressing a circle or a topic's title selects it: the circle turns red and the topic's card
 * appears beside the map. Sorting reorders the cards; finding hides cards (and dims circles)
 * whose top words do not contain the text. */
static const char SCRIPT[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var cards = document.getElementById('cards'), panel = document.getElementById('panel');\n"
    "  var circles = Array.prototype.slice.call(document.querySelectorAll('#mapsvg circle.t'));\n"
    "  var list = Array.prototype.slice.call(cards.querySelectorAll('article.topic'));\n"
    "  function select(k) {\n"
    "    circles.forEach(function (c) { c.classList.toggle('sel', c.getAttribute('data-topic') === k); });\n"
    "    list.forEach(function (a) { a.classList.toggle('sel', a.getAttribute('data-topic') === k); });\n"
    "    var card = document.getElementById('topic-' + k);\n"
    "    if (!card) return;\n"
    "    var copy = card.cloneNode(true);\n"
    "    copy.removeAttribute('id');\n"
    "    copy.classList.remove('sel');\n"
    "    copy.style.display = '';\n" /* a card the finder hid is shown here all the same */
    "    var det = copy.querySelector('details');\n"
    "    if (det) det.open = true;\n"
    "    panel.textContent = '';\n"
    "    panel.appendChild(copy);\n"
    "  }\n"
    "  circles.forEach(function (c) {\n"
    "    c.addEventListener('click', function () { select(c.getAttribute('data-topic')); });\n"
    "  });\n"
    "  list.forEach(function (a) {\n"
    "    a.querySelector('h3').addEventListener('click', function () {\n"
    "      select(a.getAttribute('data-topic'));\n"
    "      document.getElementById('map').scrollIntoView({behavior: 'smooth'});\n"
    "    });\n"
    "  });\n"
    "  var sort = document.getElementById('sort');\n"
    "  sort.addEventListener('change', function () {\n"
    "    var key = sort.value;\n"
    "    var value = function (a) { return parseFloat(a.getAttribute('data-' + key)); };\n"
    "    var sorted = list.slice().sort(function (a, b) {\n"
    "      var ta = parseFloat(a.getAttribute('data-topic')), tb = parseFloat(b.getAttribute('data-topic'));\n"
    "      if (key === 'topic') return ta - tb;\n"
    "      var d = value(b) - value(a);\n"
    "      return isNaN(d) || d === 0 ? ta - tb : d;\n"
    "    });\n"
    "    sorted.forEach(function (a) { cards.appendChild(a); });\n"
    "  });\n"
    "  var find = document.getElementById('find'), shown = document.getElementById('shown');\n"
    "  find.addEventListener('input', function () {\n"
    "    var q = find.value.trim().toLowerCase(), n = 0, hit = {};\n"
    "    list.forEach(function (a) {\n"
    "      var words = Array.prototype.map.call(a.querySelectorAll('td.w'), function (t) { return t.textContent; });\n"
    "      var ok = !q || words.some(function (w) { return w.toLowerCase().indexOf(q) >= 0; });\n"
    "      a.style.display = ok ? '' : 'none';\n"
    "      if (ok) { n++; hit[a.getAttribute('data-topic')] = true; }\n"
    "    });\n"
    "    circles.forEach(function (c) { c.classList.toggle('dim', !!q && !hit[c.getAttribute('data-topic')]); });\n"
    "    shown.textContent = q ? n + ' of ' + list.length + ' topics' : '';\n"
    "  });\n"
    "  var first = document.getElementById('mapsvg').getAttribute('data-largest');\n"
    "  if (first !== null) select(first);\n"
    "})();\n";

static double topic_share(const lda_model *m, uint32_t k, uint64_t total)
{
    return total ? (double)m->topic_tokens[k] / (double)total : 1.0 / m->num_topics;
}

static uint64_t total_tokens(const lda_model *m)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < m->num_topics; k++)
        total += m->topic_tokens[k];
    return total;
}

/* Document d as the page names it: its name and label (doc_names.h), or "document D". */
static void write_doc_name(const lda_model *m, uint64_t d, FILE *f)
{
    if (!m->doc_names) {
        fprintf(f, "document %llu", (unsigned long long)d);
        return;
    }
    html(f, lda_string_list_get(m->doc_names, (size_t)d));
    if (m->doc_labels && lda_string_list_get(m->doc_labels, (size_t)d)[0]) {
        fputs(" · ", f);
        html(f, lda_string_list_get(m->doc_labels, (size_t)d));
    }
}

static void write_summary(const lda_html_report *r, FILE *f)
{
    const lda_model *m = r->m;
    fputs("<dl class=\"summary\">", f);
#define ITEM(name, ...)                                                                                                \
    do {                                                                                                               \
        fprintf(f, "<div><dt>%s</dt><dd>", name);                                                                      \
        fprintf(f, __VA_ARGS__);                                                                                       \
        fputs("</dd></div>", f);                                                                                       \
    } while (0)
    ITEM("topics", "%u", m->num_topics);
    ITEM("vocabulary", "%u", m->vocab_size);
    ITEM("documents", "%llu", (unsigned long long)m->num_docs);
    ITEM("tokens trained on", "%llu", (unsigned long long)m->num_tokens);
    ITEM("model", "%s", lda_choice_name(lda_model_choices, lda_params_model(&m->settings.params)));
    if (m->alpha_learned) { /* --optimize-interval: one α a topic */
        double sum = 0, lo = m->alpha_learned[0], hi = lo;
        for (uint32_t k = 0; k < m->num_topics; k++) {
            sum += m->alpha_learned[k];
            lo = m->alpha_learned[k] < lo ? m->alpha_learned[k] : lo;
            hi = m->alpha_learned[k] > hi ? m->alpha_learned[k] : hi;
        }
        ITEM("α (learned)", "Σ %.4g, from %.4g to %.4g", sum, lo, hi);
        ITEM("β (learned)", "%.4g", m->beta_learned);
    } else {
        ITEM("α", "%.4g", m->settings.params.alpha);
        ITEM("β", "%.4g", m->settings.params.beta);
    }
    ITEM("iterations", "%u", m->iterations);
    const lda_log_row *last_eval = NULL, *last_held = NULL;
    for (size_t i = 0; r->log && i < r->log->count; i++) {
        if (r->log->rows[i].evaluated)
            last_eval = &r->log->rows[i];
        if (r->log->rows[i].heldout_evaluated)
            last_held = &r->log->rows[i];
    }
    if (last_eval) {
        ITEM("log-likelihood per token", "%.4f predictive, %.4f joint", last_eval->eval.loglik_pred,
             last_eval->eval.loglik_joint);
        ITEM("training time", "%.2f s", r->log->rows[r->log->count - 1].train_seconds);
    }
    if (last_held)
        ITEM("held-out", "%.4f (perplexity %.1f)", last_held->loglik_heldout, exp(-last_held->loglik_heldout));
#undef ITEM
    fputs("</dl>\n", f);
}

/* ---- the intertopic distance map ---- */

enum { MAP_SIZE = 540, MAP_PAD = 30 };

static const lda_model *sorting_model; /* qsort has no context argument */

static int by_share_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t nx = sorting_model->topic_tokens[x], ny = sorting_model->topic_tokens[y];
    if (nx != ny)
        return nx > ny ? -1 : 1;
    return (x > y) - (x < y);
}

static int write_map(const lda_html_report *r, FILE *f, lda_error *err)
{
    const lda_model *m = r->m;
    const uint32_t K = m->num_topics;
    const uint64_t total = total_tokens(m);
    uint32_t *order = lda_malloc_array(K, sizeof *order, "topic order", err);
    if (!order)
        return -1;
    for (uint32_t k = 0; k < K; k++)
        order[k] = k;
    sorting_model = m;
    qsort(order, K, sizeof *order, by_share_desc);
    /* One scale for both axes, so distances on the page are the scaled distances. */
    double lo = 0, hi = 0;
    for (uint32_t i = 0; i < 2 * K; i++) {
        lo = r->xy[i] < lo ? r->xy[i] : lo;
        hi = r->xy[i] > hi ? r->xy[i] : hi;
    }
    /* Circle areas ∝ share, together about 15% of the plot when they do not overlap; the
     * points are kept the largest radius away from the edges. */
    double c = sqrt(0.15 * (MAP_SIZE - 2 * MAP_PAD) * (MAP_SIZE - 2 * MAP_PAD) / M_PI);
    double largest = fmax(2.0, c * sqrt(topic_share(m, order[0], total)));
    double span = hi - lo > 0 ? hi - lo : 1, inner = MAP_SIZE - 2 * fmin(MAP_SIZE / 4.0, fmax(MAP_PAD, largest + 6));
    double scale = inner / span, mid = (lo + hi) / 2;
    fprintf(f, "<svg id=\"mapsvg\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"intertopic distance map\" "
               "data-largest=\"%u\">\n", MAP_SIZE, MAP_SIZE, order[0]);
    double ox = MAP_SIZE / 2.0 - mid * scale, oy = MAP_SIZE / 2.0 + mid * scale; /* the origin */
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", 0, oy, MAP_SIZE, oy);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", ox, 0, ox, MAP_SIZE);
    /* Axis names where circles rarely are: PC1 in the bottom right corner, PC2 at the top. */
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">PC1 →</text><text x=\"%.1f\" y=\"14\">PC2 ↑</text>\n",
            MAP_SIZE - 6, MAP_SIZE - 6, ox + 4);
    for (uint32_t i = 0; i < K; i++) {
        uint32_t k = order[i];
        double share = topic_share(m, k, total), rad = fmax(2.0, c * sqrt(share));
        double x = MAP_SIZE / 2.0 + (r->xy[2 * k] - mid) * scale, y = MAP_SIZE / 2.0 - (r->xy[2 * k + 1] - mid) * scale;
        fprintf(f, "<circle class=\"t\" data-topic=\"%u\" data-x=\"%.9g\" data-y=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" "
                   "r=\"%.1f\"><title>Topic %u (%.2f%%):", k, r->xy[2 * k], r->xy[2 * k + 1], x, y, rad, k, 100 * share);
        for (uint32_t w = 0; w < r->top_words && w < 8; w++) {
            fputc(' ', f);
            html(f, m->vocab[r->top[(size_t)k * r->top_words + w]]);
        }
        fputs("</title></circle>\n", f);
    }
    for (uint32_t i = 0; i < K; i++) { /* labels above every circle */
        uint32_t k = order[i];
        double rad = fmax(2.0, c * sqrt(topic_share(m, k, total)));
        if (rad < 7)
            continue;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u</text>\n",
                MAP_SIZE / 2.0 + (r->xy[2 * k] - mid) * scale, MAP_SIZE / 2.0 - (r->xy[2 * k + 1] - mid) * scale + 4,
                k);
    }
    fputs("</svg>\n", f);
    free(order);
    return 0;
}

/* ---- topics ---- */

static void write_topic(const lda_html_report *r, uint32_t k, uint64_t total, FILE *f)
{
    const lda_model *m = r->m;
    const uint32_t *words = r->top + (size_t)k * r->top_words;
    const float *phi = m->phi + (size_t)k * m->vocab_size;
    double share = topic_share(m, k, total);
    fprintf(f, "<article class=\"topic\" id=\"topic-%u\" data-topic=\"%u\" data-share=\"%.6g\"", k, k, share);
    if (r->coherence)
        fprintf(f, " data-umass=\"%.6g\" data-npmi=\"%.6g\"", r->coherence[k].umass, r->coherence[k].npmi);
    fprintf(f, ">\n<h3>Topic %u<span class=\"share\">%.2f%%</span>", k, 100 * share);
    if (r->coherence)
        fprintf(f, "<span class=\"coh\">UMass %.2f · NPMI %.3f</span>", r->coherence[k].umass, r->coherence[k].npmi);
    fputs("</h3>\n<table class=\"words\">\n", f);
    /* Bars in one scale per topic: the largest of its words' corpus counts (or φ). */
    double top_scale = 0;
    for (uint32_t i = 0; i < r->top_words; i++) {
        double v = r->term_frequency ? (double)r->term_frequency[words[i]] : phi[words[i]];
        top_scale = v > top_scale ? v : top_scale;
    }
    for (uint32_t i = 0; i < r->top_words; i++) {
        uint32_t w = words[i];
        fputs("<tr><td class=\"w\">", f);
        html(f, m->vocab[w]);
        fputs("</td><td class=\"bar\">", f);
        if (r->term_frequency) {
            double tot = (double)r->term_frequency[w], in = fmin(phi[w] * (double)m->topic_tokens[k], tot);
            fprintf(f, "<span class=\"tot\" style=\"width:%.1f%%\"></span><span class=\"in\" style=\"width:%.1f%%\" "
                       "title=\"about %.0f of its %.0f tokens\"></span>",
                    top_scale > 0 ? 100 * tot / top_scale : 0, top_scale > 0 ? 100 * in / top_scale : 0, in, tot);
        } else {
            fprintf(f, "<span class=\"in\" style=\"width:%.1f%%\"></span>",
                    top_scale > 0 ? 100 * phi[w] / top_scale : 0);
        }
        fprintf(f, "</td><td class=\"p\">%.4f</td></tr>\n", phi[w]);
    }
    fputs("</table>\n", f);
    const lda_report_doc *docs = r->docs + (size_t)k * r->top_docs;
    if (r->top_docs && docs[0].input_index != UINT64_MAX) {
        fputs("<details><summary>Documents most about this topic</summary><ol class=\"docs\">\n", f);
        for (uint32_t i = 0; i < r->top_docs && docs[i].input_index != UINT64_MAX; i++) {
            fputs("<li><span class=\"dmeta\">", f);
            write_doc_name(r->m, docs[i].input_index, f);
            fprintf(f, " · %.0f%% of it", 100.0 * docs[i].share);
            if (docs[i].length)
                fprintf(f, " · %llu tokens", (unsigned long long)docs[i].length);
            fputs("</span>", f);
            if (docs[i].text) {
                fputs("<div class=\"snip\">", f);
                html(f, docs[i].text);
                fputs("</div>", f);
            }
            fputs("</li>\n", f);
        }
        fputs("</ol></details>\n", f);
    }
    fputs("</article>\n", f);
}

/* ---- training curves ---- */

enum { CHART_W = 520, CHART_H = 320, CHART_L = 62, CHART_R = 14, CHART_T = 46, CHART_B = 40 };

/* About `want` round tick values covering [lo, hi]: step 1, 2 or 5 × 10^n. */
static double tick_step(double lo, double hi, int want)
{
    double raw = (hi - lo) / want, p = pow(10, floor(log10(raw))), s = raw / p;
    return (s < 1.5 ? 1 : s < 3.5 ? 2 : s < 7.5 ? 5 : 10) * p;
}

typedef struct {
    const char *name, *color;
    int which; /* 0 predictive, 1 joint, 2 held-out */
} series;

static int row_value(const lda_log_row *row, int which, double *v)
{
    if (which < 2 && !row->evaluated)
        return 0;
    if (which == 2 && !row->heldout_evaluated)
        return 0;
    *v = which == 0 ? row->eval.loglik_pred : which == 1 ? row->eval.loglik_joint : row->loglik_heldout;
    return isfinite(*v);
}

static void write_chart(const lda_train_log *log, int by_seconds, FILE *f)
{
    static const series all[] = {{"predictive", "#457b9d", 0}, {"joint", "#e76f51", 1}, {"held-out", "#2a9d8f", 2}};
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, v;
    int present[3] = {0, 0, 0};
    for (size_t i = 0; i < log->count; i++) {
        const lda_log_row *row = &log->rows[i];
        double x = by_seconds ? row->train_seconds : row->iteration;
        for (int s = 0; s < 3; s++) {
            if (!row_value(row, s, &v))
                continue;
            present[s] = 1;
            x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, v), y1 = fmax(y1, v);
        }
    }
    fprintf(f, "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"log-likelihood "
               "against %s\">\n", CHART_W, CHART_H, CHART_W, CHART_H, by_seconds ? "training seconds" : "iterations");
    fprintf(f, "<text x=\"%d\" y=\"18\" style=\"font-size:13px;fill:#1d2733\">log-likelihood per token against %s"
               "</text>\n", CHART_L, by_seconds ? "training seconds" : "iterations");
    if (!(x0 <= x1)) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">no evaluated iterations in log.csv</text></svg>\n", CHART_L, CHART_H / 2);
        return;
    }
    if (x1 - x0 <= 0)
        x1 = x0 + 1;
    if (y1 - y0 <= 0)
        y0 -= 0.5, y1 += 0.5;
    double pad = 0.05 * (y1 - y0);
    y0 -= pad, y1 += pad;
    const double pw = CHART_W - CHART_L - CHART_R, ph = CHART_H - CHART_T - CHART_B;
#define PX(x) (CHART_L + ((x) - x0) / (x1 - x0) * pw)
#define PY(y) (CHART_T + (y1 - (y)) / (y1 - y0) * ph)
    double step = tick_step(y0, y1, 5);
    for (double t = ceil(y0 / step) * step; t <= y1; t += step)
        fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\" "
                   "text-anchor=\"end\">%.4g</text>\n", CHART_L, CHART_W - CHART_R, PY(t), PY(t), CHART_L - 6,
                PY(t) + 4, fabs(t) < step / 1e6 ? 0.0 : t);
    step = tick_step(x0, x1, 6);
    for (double t = ceil(x0 / step) * step; t <= x1; t += step)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>\n", PX(t), CHART_H - CHART_B + 16, t);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", CHART_L + pw / 2, CHART_H - 6,
            by_seconds ? "training seconds" : "iteration");
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\"/>\n", CHART_L, CHART_T, pw, ph);
    double legend_x = CHART_L; /* the legend between the title and the plot */
    for (int s = 0; s < 3; s++) {
        if (!present[s])
            continue;
        fprintf(f, "<path stroke=\"%s\" d=\"", all[s].color);
        int first = 1;
        for (size_t i = 0; i < log->count; i++) {
            if (!row_value(&log->rows[i], s, &v))
                continue;
            double x = by_seconds ? log->rows[i].train_seconds : log->rows[i].iteration;
            fprintf(f, "%s%.1f %.1f", first ? "M" : " L", PX(x), PY(v));
            first = 0;
        }
        fputs("\"/>\n", f);
        fprintf(f, "<text x=\"%.0f\" y=\"%d\" style=\"fill:%s;font-weight:600\">%s</text>\n", legend_x, CHART_T - 10,
                all[s].color, all[s].name);
        legend_x += 12 + 7.0 * (double)strlen(all[s].name);
    }
#undef PX
#undef PY
    fputs("</svg>\n", f);
}

int lda_report_write_html(const lda_html_report *r, FILE *f, lda_error *err)
{
    const lda_model *m = r->m;
    const uint64_t total = total_tokens(m);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>ldagpu report: ", f);
    html(f, r->title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>ldagpu report</h1>\n<p class=\"sub\">",
            STYLE);
    html(f, r->title);
    fputs("</p>\n", f);
    write_summary(r, f);
    fputs("<nav><a href=\"#map\">Map</a><a href=\"#topics\">Topics</a><a href=\"#training\">Training</a></nav>\n"
          "</header>\n<main>\n", f);

    fputs("<section id=\"map\">\n<h2>Intertopic distance map</h2>\n<p class=\"note\">Each circle is a topic, its area "
          "proportional to the topic's share of the tokens. Topics are placed by classical multidimensional scaling "
          "of the Jensen–Shannon divergences between their word distributions (as LDAvis does): close circles are "
          "topics that use the same words. Select a circle to see its topic here.</p>\n<div class=\"maprow\">\n", f);
    if (write_map(r, f, err))
        return -1;
    fputs("<aside id=\"panel\"><p class=\"note\">Select a topic on the map.</p></aside>\n</div>\n</section>\n", f);

    fputs("<section id=\"topics\">\n<h2>Topics</h2>\n<div class=\"controls\"><label>Sort by <select id=\"sort\">"
          "<option value=\"topic\">topic number</option><option value=\"share\">share</option>", f);
    if (r->coherence)
        fputs("<option value=\"umass\">UMass coherence</option><option value=\"npmi\">NPMI coherence</option>", f);
    fputs("</select></label><label>Find a word <input id=\"find\" type=\"search\" placeholder=\"word\"></label>"
          "<span id=\"shown\" class=\"note\"></span></div>\n<p class=\"note\">", f);
    if (r->term_frequency)
        fputs("Red bars: the word's estimated tokens in the topic (φ·topic tokens); grey bars: its tokens in the "
              "corpus, in one scale per topic. The number is p(word | topic). Coherence: UMass (closer to 0 is "
              "better) and NPMI (−1 to 1, higher is better) of the top words, each the mean over their pairs, from "
              "the training documents.", f);
    else {
        fputs("Bars: p(word | topic), relative to the topic's first word. ", f);
        if (r->corpus_note) {
            fputs("Coherence, corpus counts and document texts are missing: ", f);
            html(f, r->corpus_note);
        }
    }
    if (r->theta_note) {
        fputs(" ", f);
        html(f, r->theta_note);
    }
    fputs("</p>\n<div id=\"cards\">\n", f);
    for (uint32_t k = 0; k < m->num_topics; k++)
        write_topic(r, k, total, f);
    fputs("</div>\n</section>\n", f);

    fputs("<section id=\"training\">\n<h2>Training</h2>\n<p class=\"note\">From log.csv: the per-token "
          "log-likelihoods on evaluated iterations (predictive: log Σ θφ of the training tokens; joint: log p(w, z) "
          "with θ and φ integrated out; held-out: document completion of the held-out documents).</p>\n", f);
    if (r->log && r->log->count) {
        fputs("<div class=\"charts\">\n", f);
        write_chart(r->log, 0, f);
        write_chart(r->log, 1, f);
        fputs("</div>\n", f);
    } else {
        fputs("<p class=\"note\">This model folder has no log.csv.</p>\n", f);
    }
    fputs("</section>\n", f);
    fprintf(f, "<footer>Written by ldagpu report. Everything is in this file: no network is used.</footer>\n"
               "</main>\n<script>\n%s</script>\n</body>\n</html>\n", SCRIPT);
    return 0;
}
