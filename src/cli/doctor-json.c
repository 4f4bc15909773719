/* `cordon doctor --json`: the library's encoding of the checks and of what the settings get
 * (cordon_doctor_to_json()), with this program's problems added, the same facts as the text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doctor-cli.h"
#include "shared/json-util.h"
#include "shared/macro.h"

/* [{"what": "...", "fix": "..." or null, "refuses": true}, ...]; NULL when out of memory. */
static json_t *problems_json(const struct doctor_problems *pr)
{
        _cleanup_json_ json_t *a = json_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < pr->n; i++) {
                json_t *o =
                    json_pack("{s:o, s:o, s:b}", "what", json_string_or_null(pr->p[i].what), "fix",
                              json_string_or_null(*pr->p[i].fix ? pr->p[i].fix : NULL), "refuses",
                              pr->p[i].refuses);
                if (!o || json_array_append_new(a, o) < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

json_t *doctor_json_build(const struct doctor_view *v, const struct doctor_problems *pr)
{
        _cleanup_free_ char *text = NULL;
        if (cordon_doctor_to_json(v->r, v->setup, v->s, 0, &text) < 0)
                return NULL;
        _cleanup_json_ json_t *root = json_loads(text, 0, NULL);
        json_t *problems = problems_json(pr);
        if (!root || !problems || json_object_set_new(root, "problems", problems) < 0) {
                if (!root)
                        json_decref(problems);
                return NULL;
        }
        return TAKE_PTR(root);
}
