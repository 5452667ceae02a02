-- leading_comment_lines: the whole `/* tsdedup ... */` lines that compiled SQL
-- starts with, joined by ' | ' ('-' for none). A marker written in the query
-- below them (as a quoted name from data would be) is not one of them.
{%- set cases = {
    'plan': '/* tsdedup write mode: merge; days 2026-11-01 */\n'
        ~ '/* tsdedup log heads: chunk 3, retraction 0 */\n'
        ~ '/* tsdedup key check: no stored key */\n'
        ~ 'with new_points as (\n'
        ~ '    select `/* tsdedup key check: stored keys found */` from t\n'
        ~ ')',
    'indented': '\n\n  /* tsdedup write mode: append */\nselect 1',
    'only_comments': '/* tsdedup write mode: rebuild */\n/* tsdedup read: raw log day partitions in place */',
    'name_in_query': 'select `/* tsdedup columns: the table has every column written */`\n'
        ~ '/* tsdedup read: raw log day partitions in place */',
    'text_after_comment': '/* tsdedup write mode: none */ select 1\n/* tsdedup key check: no stored key */',
    'other_comment_first': '/* another tool */\n/* tsdedup write mode: append */',
    'empty': '',
    'none': none,
} %}
{%- for name, code in cases | dictsort %}
{%- set lines = tsdedup.leading_comment_lines(code) %}
select
    '{{ name }}' as case_name,
    {{ lines | length }} as line_count,
    '{{ lines | join(" | ") or "-" }}' as comment_lines
{%- if not loop.last %}
union all
{%- endif %}
{%- endfor %}
