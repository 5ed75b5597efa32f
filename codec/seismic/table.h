/*
 * A version 4 or 5 frame's code table (table_core.h): writing it, and
 * reading it on the host.
 */
#ifndef SCI_CODEC_SEISMIC_TABLE_H
#define SCI_CODEC_SEISMIC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes a version's table of nsym symbols takes. */
size_t sci_seis_table_bound(uint32_t nsym, unsigned version);

/* The lengths len[0..nsym-1] (each 0..SCI_HUFF_MAX_LEN) as a version's
 * table (4 or 5) into out (cap bytes): its size, or 0 when cap is too
 * small. */
size_t sci_seis_table_write(const uint8_t *len, uint32_t nsym,
                            unsigned version, uint8_t *out, size_t cap);

/* The z-byte table's lengths into len (nsym of them): 0, or -1 when it is
 * not a table an encoder of that version writes. */
int sci_seis_table_read(const uint8_t *table, size_t z, uint32_t nsym,
                        unsigned version, uint8_t *len);

#ifdef __cplusplus
}
#endif

#endif
