/**
 * The pages' languages, shared by every app that renders pages: choosing the locale of a request,
 * looking up a catalogue's messages, and showing dates and times in that locale.
 */
export { negotiateLocale } from './i18n/negotiate-locale.ts';
export { createTranslator, MISSING_MESSAGE_MARKER, type Catalogue, type Message, type Translation, type Translator } from './i18n/translator.ts';
export { formatDateTime, formatRelative, timeElement, type TimeStyle } from './i18n/format-time.ts';
