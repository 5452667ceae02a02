{#
    What the column catalog `catalog_relation` has not caught up with, as a
    count (0: it is current). Asked by int_column_types of itself and by
    require_current_column_catalog (_measurements__macros.yml).
#}
{% macro column_catalog_gaps(catalog_relation, measurement_name=none, after_chunk=0) %}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- set measurement = none if measurement_name is none else tsdedup.string_literal(measurement_name) -%}
    {#- Not ref(): the catalog is built from stg_columns, so its readers need
        not name it again. -#}
    {%- set sql -%}
        select count(*) as gaps
        from (
            select 1 as gap
            from (
                select c.column_name
                from {{ tsdedup.model_relation('stg_columns') }} as c
                left anti join {{ catalog_relation }} as t
                    on {{ tsdedup.same_column('c', 't') }}
                where
                    c.chunk_seq > {{ after_chunk | int }}
                    {%- if measurement %}
                    and c.measurement = {{ measurement }}
                    {%- endif %}
                limit 1
            )
            union all
            select 1 as gap
            from {{ catalog_relation }} as t
            inner join {{ tsdedup.retracted_chunks_relation() }} as r
                on t.first_chunk_seq = r.chunk_seq
            {%- if measurement %}
            where t.measurement = {{ measurement }}
            {%- endif %}
        )
    {%- endset -%}
    {{ return(run_query(sql).columns[0].values()[0] | int) }}
{% endmacro %}
