// Package tfrecord reads TFRecord streams (TF Serving's warmup file
// assets.extra/tf_serving_warmup_requests): each record is a little-endian
// uint64 length, its masked CRC-32C, the payload and the payload's masked
// CRC-32C. Framing is always checked end to end; payloads are read and
// checksummed only up to a budget, so a huge file costs a seek per record.
package tfrecord

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/modellint/modellint/lint/model/modelfile"
)

const headerSize = 12 // length + its checksum

// Budgets for reading payloads: a record larger than MaxPayload, or any
// record after PayloadBudget bytes were read, is passed to the callback as
// nil and its checksum is not verified.
const (
	MaxPayload    = 4 << 20
	PayloadBudget = 64 << 20
)

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "not a valid TFRecord stream"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Mask is TensorFlow's masked CRC-32C of data, as stored in a record.
func Mask(data []byte) uint32 {
	crc := crc32.Checksum(data, castagnoli)
	return (crc>>15 | crc<<17) + 0xa282ead8
}

// AppendRecord frames one payload as TensorFlow's TFRecordWriter does
// (length, its masked CRC, payload, its masked CRC) and appends it to dst:
// the writer of the fixtures that test warmup files.
func AppendRecord(dst, payload []byte) []byte {
	length := binary.LittleEndian.AppendUint64(nil, uint64(len(payload)))
	dst = append(dst, length...)
	dst = binary.LittleEndian.AppendUint32(dst, Mask(length))
	dst = append(dst, payload...)
	return binary.LittleEndian.AppendUint32(dst, Mask(payload))
}

// Read walks the records of a stream of size bytes and calls fn with each
// record's number (from 0) and payload (nil when not read, see
// PayloadBudget). It stops after limit records; more says that data
// follows them.
func Read(r io.ReaderAt, size int64, limit int, fn func(number int, payload []byte) error) (records int, more bool, err error) {
	var header [headerSize]byte
	var trailer [4]byte
	budget := int64(PayloadBudget)
	off := int64(0)
	for off < size {
		if records == limit {
			return records, true, nil
		}
		if size-off < headerSize {
			return records, false, invalid("record %d at offset %d: %d bytes left, too few for a record header (truncated file?)", records, off, size-off)
		}
		if _, err := io.ReadFull(io.NewSectionReader(r, off, int64(len(header[:]))), header[:]); err != nil {
			return records, false, err
		}
		length := binary.LittleEndian.Uint64(header[:8])
		if Mask(header[:8]) != binary.LittleEndian.Uint32(header[8:]) {
			return records, false, invalid("record %d at offset %d: the length checksum does not match (not a TFRecord file?)", records, off)
		}
		off += headerSize
		if length > uint64(size-off) || uint64(size-off)-length < 4 {
			return records, false, invalid("record %d claims %d bytes but only %d remain (truncated file?)", records, length, size-off)
		}
		var payload []byte
		if int64(length) <= MaxPayload && int64(length) <= budget {
			budget -= int64(length)
			payload = make([]byte, length)
			if _, err := io.ReadFull(io.NewSectionReader(r, off, int64(len(payload))), payload); err != nil {
				return records, false, err
			}
			if _, err := io.ReadFull(io.NewSectionReader(r, off+int64(length), int64(len(trailer[:]))), trailer[:]); err != nil {
				return records, false, err
			}
			if Mask(payload) != binary.LittleEndian.Uint32(trailer[:]) {
				return records, false, invalid("record %d: the data checksum does not match (corrupt file)", records)
			}
		}
		off += int64(length) + 4
		if fn != nil {
			if err := fn(records, payload); err != nil {
				return records, false, err
			}
		}
		records++
	}
	return records, false, nil
}

func invalid(format string, args ...any) error {
	return modelfile.Invalidf(FormatName, "%s", fmt.Sprintf(format, args...))
}
