package manifest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// A typed decode through JSON spends most of its time writing the document
// as JSON and reading it back. fillFromTable fills the typed value straight
// from the field table in the plain case, where every key is a field of the
// type and every scalar is of its field's kind, and gives up otherwise: the
// JSON decode then runs as before, and reports what it finds. Where it
// fills, it gives what encoding/json gives (TestCleanDecodeMatchesStrict,
// FuzzLoad).

// fillFromTable fills into, a pointer to a zero value, from the value at
// keys as encoding/json would from its JSON, and reports whether it did.
// When it did not, into is left zero.
func (o *Object) fillFromTable(keys []string, into any) bool {
	if o.Doc.rareOrNone().expanded != nil {
		return false
	}
	target := reflect.ValueOf(into)
	if target.Kind() != reflect.Pointer || target.IsNil() {
		return false
	}
	entry, ok := o.lookupEntry(keys)
	if ok && o.Doc.table().fill(entry, target.Elem(), planOf(target.Type().Elem())) {
		return true
	}
	target.Elem().SetZero()
	return false
}

// fill sets v, a zero value of the plan's type, from the entry.
func (t *fieldTable) fill(entry int32, v reflect.Value, plan *typePlan) bool {
	e := &t.entries[entry]
	switch plan.decoding {
	case byUnmarshalJSON:
		// Quantities, IntOrStrings, times: their own decode, on the
		// entry's JSON alone.
		raw := t.appendJSON(make([]byte, 0, 32), entry)
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw) == nil
	case byIntOrString:
		return t.fillIntOrString(e, v.Addr().Interface().(*intstr.IntOrString))
	case unsupported:
		return false
	}
	if e.kind == kindNull {
		// encoding/json leaves a zero value as it is, and a pointer nil.
		return true
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := t.stringValue(e.kind, e.data)
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Bool:
		if e.kind != kindBool {
			return false
		}
		v.SetBool(t.str(e.data) == "true")
		return true
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := plainDecimal(t.str(e.data))
		if e.kind != kindInt || !ok || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if !t.fill(entry, elem.Elem(), plan.elem) {
			return false
		}
		v.Set(elem)
		return true
	case reflect.Slice:
		return t.fillSlice(e, v, plan)
	case reflect.Map:
		return t.fillMap(e, v, plan)
	case reflect.Struct:
		return t.fillStruct(e, v, plan)
	}
	return false
}

// stringValue is a string's text, copied unless the run shares it, so a
// typed object does not keep its document's text.
func (t *fieldTable) stringValue(kind valueKind, data span) (string, bool) {
	if kind != kindString {
		return "", false
	}
	s := t.str(data)
	if !utf8.ValidString(s) {
		return "", false // encoding/json replaces what is not UTF-8
	}
	if data.start&sharedSpan != 0 {
		return s, true
	}
	return strings.Clone(s), true
}

// fillIntOrString is IntOrString.UnmarshalJSON on the entry's JSON: a
// string is one, anything else the int32 it must be (null leaves it zero).
func (t *fieldTable) fillIntOrString(e *fieldEntry, into *intstr.IntOrString) bool {
	switch e.kind {
	case kindString:
		s, ok := t.stringValue(e.kind, e.data)
		*into = intstr.IntOrString{Type: intstr.String, StrVal: s}
		return ok
	case kindInt:
		n, ok := plainDecimal(t.str(e.data))
		*into = intstr.IntOrString{Type: intstr.Int, IntVal: int32(n)}
		return ok && n == int64(int32(n))
	}
	return e.kind == kindNull
}

func (t *fieldTable) fillSlice(e *fieldEntry, v reflect.Value, plan *typePlan) bool {
	if e.kind != kindSequence {
		return false
	}
	first, end, _ := e.children()
	items := reflect.MakeSlice(v.Type(), int(end-first), int(end-first))
	for i := range int(end - first) {
		if !t.fill(first+int32(i), items.Index(i), plan.elem) {
			return false
		}
	}
	v.Set(items)
	return true
}

func (t *fieldTable) fillMap(e *fieldEntry, v reflect.Value, plan *typePlan) bool {
	if e.kind != kindMapping {
		return false
	}
	typ := v.Type()
	first, end, _ := e.children()
	m := reflect.MakeMapWithSize(typ, int(end-first))
	// The map copies its keys and items in, so one of each serves all.
	key, item := reflect.New(typ.Key()).Elem(), reflect.New(typ.Elem()).Elem()
	for child := first; child < end; child++ {
		text, ok := t.stringValue(kindString, t.entries[child].key)
		if !ok {
			return false
		}
		key.SetString(text)
		if m.MapIndex(key).IsValid() {
			return false // a key written twice: the JSON keeps the last
		}
		item.SetZero()
		if !t.fill(child, item, plan.elem) {
			return false
		}
		m.SetMapIndex(key, item)
	}
	v.Set(m)
	return true
}

func (t *fieldTable) fillStruct(e *fieldEntry, v reflect.Value, plan *typePlan) bool {
	if e.kind != kindMapping {
		return false
	}
	var set [maxPlannedFields / 64]uint64
	first, end, _ := e.children()
	for child := first; child < end; child++ {
		var field plannedField
		var ok bool
		if key := t.entries[child].key; key.start&sharedSpan != 0 {
			field, ok = plan.shared[key.start]
		} else {
			field, ok = plan.fields[t.str(key)]
		}
		if !ok || set[field.n/64]&(1<<(field.n%64)) != 0 {
			return false // unknown, or written twice
		}
		set[field.n/64] |= 1 << (field.n % 64)
		target := v.Field(field.index[0])
		for _, i := range field.index[1:] {
			target = target.Field(i)
		}
		if !t.fill(child, target, field.plan) {
			return false
		}
	}
	return true
}

// typePlan is how encoding/json decodes a type, made once per type.
type typePlan struct {
	decoding decoding
	// elem is the plan of a pointer's, slice's or map's element.
	elem *typePlan
	// fields are where a struct's keys go; shared are those of the keys in
	// the run's shared text, by where they start there (a key written in
	// the shared text is found by its span, without hashing its text).
	fields map[string]plannedField
	shared map[uint32]plannedField
}

// decoding is how encoding/json decodes a type.
type decoding uint8

const (
	byKind          decoding = iota // by its kind: string, struct, map …
	byUnmarshalJSON                 // by its pointer's UnmarshalJSON
	byIntOrString                   // as IntOrString.UnmarshalJSON does, without encoding/json
	unsupported                     // some other way fill does not follow
)

// plannedField is a struct field, its number among the struct's, and its
// type's plan.
type plannedField struct {
	index []int
	n     int
	plan  *typePlan
}

// maxPlannedFields is how many fields a struct fill follows may have.
const maxPlannedFields = 128

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	intOrStringType     = reflect.TypeFor[intstr.IntOrString]()

	// plans are the plans made, by type.
	plans   sync.Map
	plansMu sync.Mutex
)

// planOf is the plan of typ.
func planOf(typ reflect.Type) *typePlan {
	if plan, ok := plans.Load(typ); ok {
		return plan.(*typePlan)
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	making := map[reflect.Type]*typePlan{}
	plan := makePlan(typ, making)
	// Stored once all are made: a plan may point to one made after it.
	for made, plan := range making {
		plans.Store(made, plan)
	}
	return plan
}

// makePlan makes the plan of typ and of the types it holds; making lists
// the plans begun, so a type that holds itself ends.
func makePlan(typ reflect.Type, making map[reflect.Type]*typePlan) *typePlan {
	if plan, ok := plans.Load(typ); ok {
		return plan.(*typePlan)
	}
	if plan := making[typ]; plan != nil {
		return plan
	}
	plan := &typePlan{}
	making[typ] = plan
	switch pointer := reflect.PointerTo(typ); {
	case typ.Kind() == reflect.Pointer:
		plan.elem = makePlan(typ.Elem(), making)
	case typ == intOrStringType:
		plan.decoding = byIntOrString
	case pointer.Implements(jsonUnmarshalerType):
		plan.decoding = byUnmarshalJSON
	case pointer.Implements(textUnmarshalerType):
		plan.decoding = unsupported
	case typ.Kind() == reflect.Slice:
		plan.elem = makePlan(typ.Elem(), making)
		if typ.Elem().Kind() == reflect.Uint8 {
			plan.decoding = unsupported // bytes are base64 in JSON
		}
	case typ.Kind() == reflect.Map:
		key := reflect.PointerTo(typ.Key())
		if typ.Key().Kind() != reflect.String || key.Implements(jsonUnmarshalerType) || key.Implements(textUnmarshalerType) {
			plan.decoding = unsupported
		}
		plan.elem = makePlan(typ.Elem(), making)
	case typ.Kind() == reflect.Struct:
		plan.fields = map[string]plannedField{}
		if !plan.addFields(typ, nil, making) || len(plan.fields) > maxPlannedFields {
			plan.decoding, plan.fields = unsupported, nil
		}
		_, sharedSpans := sharedText()
		plan.shared = map[uint32]plannedField{}
		for name, field := range plan.fields {
			if at, ok := sharedSpans[name]; ok {
				plan.shared[at.start] = field
			}
		}
	case typ.Kind() == reflect.String, typ.Kind() == reflect.Bool, typ.Kind() == reflect.Int,
		typ.Kind() == reflect.Int16, typ.Kind() == reflect.Int32, typ.Kind() == reflect.Int64:
	default:
		plan.decoding = unsupported // unsigned and float numbers, interfaces and int8 among others
	}
	if _, ok := reflect.PointerTo(typ).MethodByName("UnmarshalJSONFrom"); ok {
		plan.decoding = unsupported
	}
	return plan
}

// addFields adds the fields of typ, reached through index; false when one
// is not a plain named field or an inlined struct, or two share a name.
func (p *typePlan) addFields(typ reflect.Type, index []int, making map[reflect.Type]*typePlan) bool {
	for i := range typ.NumField() {
		field := typ.Field(i)
		tag := field.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		fieldIndex := append(append([]int(nil), index...), i)
		for option := range strings.SplitSeq(options, ",") {
			if option != "" && option != "omitempty" && option != "omitzero" && (option != "inline" || !field.Anonymous) {
				return false
			}
		}
		if field.Anonymous && name == "" {
			if field.Type.Kind() != reflect.Struct || reflect.PointerTo(field.Type).Implements(jsonUnmarshalerType) ||
				!p.addFields(field.Type, fieldIndex, making) {
				return false
			}
			continue
		}
		if !field.IsExported() {
			continue
		}
		if name == "" {
			name = field.Name
		}
		if _, twice := p.fields[name]; twice || !onlyBytes(name, jsonNameBytes) {
			return false
		}
		p.fields[name] = plannedField{index: fieldIndex, n: len(p.fields), plan: makePlan(field.Type, making)}
	}
	return true
}

// jsonNameBytes are the bytes of the field names fill follows.
const jsonNameBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.$/"
