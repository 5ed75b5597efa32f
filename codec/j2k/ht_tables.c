/*
 * The encoder's view of the CxtVLC tables: for every context, significance
 * pattern and set of samples at the quad's maximum exponent, the codeword
 * that costs the fewest bits in all.
 */
#include "ht_tables.h"

static unsigned popcount4(unsigned v) {
    return (v & 1) + ((v >> 1) & 1) + ((v >> 2) & 1) + ((v >> 3) & 1);
}

/* A row with u_off = 1 and EMB pattern e_k spares the MagSgn bit of every
 * sample named in e_k (its top bit is implied by e_1), so the cost to
 * compare is the codeword length less the bits it spares. */
static int build(uint16_t *lut, const sci_ht_vlc_row *rows, unsigned n) {
    for (unsigned i = 0; i < 2048; i++) {
        unsigned cq = i >> 8, rho = (i >> 4) & 15, emb = i & 15;
        lut[i] = 0;
        if ((emb & rho) != emb || (cq == 0 && rho == 0))
            continue; /* unreachable, or coded by MEL alone */
        int best = -1, best_cost = 1 << 20;
        for (unsigned j = 0; j < n; j++) {
            const sci_ht_vlc_row *r = &rows[j];
            if (r->cq != cq || r->rho != rho || r->u_off != (emb != 0))
                continue;
            if (emb && (emb & r->e_k) != r->e_1)
                continue;
            int cost = (int)r->len - (int)popcount4(r->e_k);
            if (cost < best_cost ||
                (cost == best_cost && r->len < rows[best].len)) {
                best = (int)j;
                best_cost = cost;
            }
        }
        if (best < 0)
            return -1;
        const sci_ht_vlc_row *r = &rows[best];
        lut[i] = (uint16_t)((r->cwd << 8) | (r->len << 4) | r->e_k);
    }
    return 0;
}

int sci_ht_enc_tables_init(sci_ht_enc_tables *t) {
    if (build(t->vlc[0], sci_ht_vlc_table0, sci_ht_vlc_table0_rows) < 0)
        return -1;
    return build(t->vlc[1], sci_ht_vlc_table1, sci_ht_vlc_table1_rows);
}
