/// Ten years of audio: the horizon every product is checked against.
package let tenYears: Int64 = 10 * 366 * 86_400
