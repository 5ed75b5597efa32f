/*
 * CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320, initial value and
 * final xor 0xFFFFFFFF): sci_crc32(0, "123456789", 9) = 0xCBF43926.  crc is
 * the value of the bytes before (0 at the start), so it can run in pieces.
 */
#ifndef SCI_CODEC_CRC32_H
#define SCI_CODEC_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint32_t sci_crc32(uint32_t crc, const uint8_t *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
